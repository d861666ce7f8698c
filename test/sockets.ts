// Raw connections for what only a socket shows: requests held half-sent across a server's close, and
// readers that never read, with a small receive buffer.
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { connect } from 'node:net'
import { fileURLToPath } from 'node:url'

/** Resolves once the listener on `port` refuses new connections (it is closed before anything else ends). */
export async function listenerClosed (port: number): Promise<void> {
  for (let attempt = 0; attempt < 10_000; attempt++) {
    const socket = connect(port, '127.0.0.1')
    const refused = await new Promise<boolean>(resolve => {
      socket.once('connect', () => { socket.destroy(); resolve(false) })
      socket.once('error', () => resolve(true))
    })
    if (refused) return
  }
  throw new Error('the listener never closed')
}

/** A connection with a request that has begun but is held back; `rest` completes it. */
export function begun (port: number, start: string) {
  const socket = connect(port, '127.0.0.1')
  socket.setEncoding('utf8')
  let answer = ''
  socket.on('data', (chunk: string) => { answer += chunk })
  socket.on('error', () => {})
  socket.write(start)
  return {
    socket,
    finish: async (rest: string): Promise<string> => {
      socket.write(rest)
      await once(socket, 'close').catch(() => {})
      return answer
    }
  }
}

const SLOW_READERS = fileURLToPath(new URL('slow-readers.py', import.meta.url))
const PYTHON = process.env.PYTHON ?? 'python3'

/** false when Python can hold the slow readers here; else why not (in CI, a failure). */
export const pythonMissing: false | string = spawnSync(PYTHON, ['--version']).status === 0
  ? false
  : `${PYTHON} is not installed: test/slow-readers.py holds sockets with a small receive buffer, which Node cannot make`

/**
 * `count` connections to `port` from `from` (in turn), each with a receive buffer of `receiveBuffer` bytes, asking
 * for `path` and never reading (test/slow-readers.py). Resolves once every request is sent; `stop` closes them all.
 */
export async function slowReaders (port: number, path: string, count: number, from: string[], receiveBuffer = 4096) {
  const child = spawn(PYTHON, [SLOW_READERS, String(port), path, String(count), String(receiveBuffer), ...from], { stdio: ['pipe', 'pipe', 'inherit'] })
  let out = ''
  await new Promise<void>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk
      if (out.includes('ready')) resolve()
    })
    child.once('exit', code => reject(new Error(`slow-readers.py exited with ${code}: ${out}`)))
  })
  return {
    stop: async (): Promise<void> => {
      if (child.exitCode !== null) return
      const exited = once(child, 'exit')
      child.stdin.end()
      await exited
    }
  }
}
