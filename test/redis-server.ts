// A real redis-server for the tests, on a free loopback port with its own directory, persisting
// every write (appendfsync always) so that a restart loses nothing. In CI (CI=true) its absence is
// a failure; elsewhere the Redis tests say that they need it and do not run.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const BINARY = process.env.REDIS_SERVER ?? 'redis-server'

export const redisInstalled = spawnSync(BINARY, ['--version']).status === 0

/** false when Redis can run here; else why the Redis tests cannot (and in CI that is a failure). */
export const redisMissing: false | string = redisInstalled
  ? false
  : `${BINARY} is not installed (apt-get install redis-server); CI installs it and runs these tests`

/** A port nobody listens on now, on the loopback. */
export async function freePort (): Promise<number> {
  const probe = createServer()
  probe.listen(0, '127.0.0.1')
  await once(probe, 'listening')
  const port = (probe.address() as { port: number }).port
  probe.close()
  await once(probe, 'close')
  return port
}

export interface RedisServer {
  url: string
  port: number
  stop (): Promise<void>
  start (): Promise<void>
  remove (): Promise<void>
}

/** `args`: more redis-server arguments, such as `['--requirepass', 'secret']`. */
export async function redisServer (args: string[] = []): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), 'api-challenges-redis-'))
  const port = await freePort()
  let child: ChildProcess | undefined
  const start = async (): Promise<void> => {
    child = spawn(BINARY, ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '',
      '--appendonly', 'yes', '--appendfsync', 'always', '--daemonize', 'no', '--protected-mode', 'no', ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    await new Promise<void>((resolve, reject) => {
      child?.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk
        if (out.includes('Ready to accept connections')) resolve()
      })
      child?.on('exit', code => reject(new Error(`redis-server exited with ${code}: ${out}`)))
    })
    child.stdout?.resume()
  }
  const stop = async (): Promise<void> => {
    // A child killed by a signal has a signalCode and no exitCode.
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return
    const exited = once(child, 'exit')
    child.kill('SIGKILL')
    await exited
  }
  await start()
  return { url: `redis://127.0.0.1:${port}`, port, stop, start, remove: async () => { await stop(); await rm(dir, { recursive: true, force: true }) } }
}
