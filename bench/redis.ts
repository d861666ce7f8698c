// A throwaway redis-server for the benchmark (Debian's redis-server, when installed): a random port
// on 127.0.0.1, no snapshots (--save ''), its files in a temporary directory removed on stop.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface RedisServer {
  url: string
  child: ChildProcess
  stop (): Promise<void>
}

export function hasRedis (): boolean {
  return spawnSync('redis-server', ['--version']).status === 0
}

/** Starts redis-server with `extra` arguments; resolves once it accepts connections. */
export async function startRedis (extra: string[] = []): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-redis-'))
  const port = 20000 + Math.floor(Math.random() * 20000)
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', ...extra],
    { stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  await new Promise<void>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk
      if (output.includes('Ready to accept')) resolve()
    })
    child.on('exit', code => reject(new Error(`redis-server exited with ${code}:\n${output}`)))
  })
  child.stdout.resume()
  const exited = new Promise<void>(resolve => child.once('exit', () => resolve()))
  return {
    url: `redis://127.0.0.1:${port}`,
    child,
    async stop () {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM')
        await exited
      }
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
