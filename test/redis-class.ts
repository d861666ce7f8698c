// A class's Redis as docs/redis/ ships it: a primary and two replicas started from copies of
// docs/redis/redis.conf, three sentinels from copies of docs/redis/sentinel.conf (each rewrites its own
// file), on free loopback ports, each in a directory of its own.
// Only the port, the directory, a replica's primary and (in a sentinel's copy) the primary's port are
// the test's; `extra` adds arguments to every Redis, to try other settings against these.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import type { Test } from 'tap'
import { freePort } from './redis-server.js'
import { until } from './until.js'

const BINARY = process.env.REDIS_SERVER ?? 'redis-server'
export const REDIS_CONF = new URL('../docs/redis/redis.conf', import.meta.url).pathname
export const SENTINEL_CONF = new URL('../docs/redis/sentinel.conf', import.meta.url).pathname
const MONITOR = 'sentinel monitor mymaster 127.0.0.1 6379 2'

export interface RedisNode {
  port: number
  url: string
  child: ChildProcess
  /** Starts it again, as it was started (from its own config file, which Sentinel may have rewritten), once it has exited. */
  restart: () => Promise<void>
}

export interface RedisClass {
  /** The primary, then the two replicas, as started. */
  nodes: RedisNode[]
  /** REDIS_SENTINELS for them. */
  sentinels: string
  /** A client of each sentinel. */
  admins: Redis[]
  /** The node the sentinels name as the primary now. */
  primary (): Promise<RedisNode>
  /** Resolves once the primary has both replicas in sync and every sentinel knows them and the other two. */
  settled (): Promise<void>
}

/** Runs `args` (a config file first) and resolves once it says `ready`; killed on teardown. */
async function start (t: Test, args: string[], ready: string): Promise<ChildProcess> {
  const child = spawn(BINARY, args, { stdio: ['ignore', 'pipe', 'inherit'] })
  t.teardown(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = once(child, 'exit')
    child.kill('SIGKILL')
    await exited
  })
  let out = ''
  await new Promise<void>((resolve, reject) => {
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk
      if (out.includes(ready)) resolve()
    })
    child.on('exit', code => { reject(new Error(`${args.join(' ')} exited with ${code}: ${out}`)) })
  })
  child.stdout?.resume()
  return child
}

/**
 * `hostnames`: every Redis announces itself as `localhost`, and the sentinels name them so
 * (`resolve-hostnames` and `announce-hostnames yes`), as in a cluster that names its hosts.
 */
export async function redisClass (t: Test, extra: string[] = [], { hostnames = false } = {}): Promise<RedisClass> {
  const host = hostnames ? 'localhost' : '127.0.0.1'
  const announce = hostnames ? ['--replica-announce-ip', host] : []
  const dir = await mkdtemp(join(tmpdir(), 'api-challenges-class-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const node = async (name: string, follow?: number): Promise<RedisNode> => {
    const port = await freePort()
    const home = join(dir, name)
    await mkdir(home)
    const replicaof = follow === undefined ? [] : ['--replicaof', host, String(follow)]
    // A copy: at a failover Sentinel has each Redis rewrite its file (CONFIG REWRITE).
    const config = join(home, 'redis.conf')
    await writeFile(config, readFileSync(REDIS_CONF))
    const args = [config, '--port', String(port), '--dir', home, ...announce, ...extra]
    const made: RedisNode = {
      port,
      url: `redis://127.0.0.1:${port}`,
      child: await start(t, [...args, ...replicaof], 'Ready to accept connections'),
      // Without --replicaof: restarted, a Redis follows whom its file says (Sentinel rewrites it), or none, as systemd's restart would.
      restart: async () => { made.child = await start(t, args, 'Ready to accept connections') }
    }
    return made
  }
  const primary = await node('primary')
  const nodes = [primary, await node('replica-1', primary.port), await node('replica-2', primary.port)]
  const reference = readFileSync(SENTINEL_CONF, 'utf8')
  if (!reference.includes(MONITOR)) throw new Error(`${SENTINEL_CONF} no longer holds "${MONITOR}"`)
  const ports: number[] = []
  for (const name of ['sentinel-1', 'sentinel-2', 'sentinel-3']) {
    const port = await freePort()
    const home = join(dir, name)
    await mkdir(home)
    const config = join(home, 'sentinel.conf')
    const names = hostnames ? 'sentinel resolve-hostnames yes\nsentinel announce-hostnames yes\n' : ''
    await writeFile(config, reference.replace(MONITOR, `${names}sentinel monitor mymaster ${host} ${primary.port} 2`))
    await start(t, [config, '--sentinel', '--port', String(port), '--dir', home], '+monitor master')
    ports.push(port)
  }
  const admins = ports.map(port => new Redis(port, '127.0.0.1').on('error', () => {}))
  const data = new Map(nodes.map(node => [node.port, new Redis(node.port, '127.0.0.1', { maxRetriesPerRequest: 0 }).on('error', () => {})]))
  t.teardown(() => { for (const client of [...admins, ...data.values()]) client.disconnect() })
  const cls: RedisClass = {
    nodes,
    sentinels: ports.map(port => `127.0.0.1:${port}`).join(','),
    admins,
    async primary () {
      const [, port] = await (admins[0] as Redis).call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', 'mymaster') as [string, string]
      return nodes.find(node => node.port === Number(port)) as RedisNode
    },
    async settled () {
      await until('a primary with two replicas in sync, known to every sentinel', async () => {
        const now = await cls.primary()
        const info = await (data.get(now.port) as Redis).info('replication')
        if ((info.match(/state=online/g) ?? []).length !== 2) return false
        for (const admin of admins) {
          const [replicas, others] = await Promise.all([admin.call('SENTINEL', 'REPLICAS', 'mymaster'), admin.call('SENTINEL', 'SENTINELS', 'mymaster')]) as string[][][]
          const fine = replicas?.filter(fields => /^slave$/.test(fields[fields.indexOf('flags') + 1] as string))
          if (fine?.length !== 2 || others?.length !== 2) return false
        }
        return true
      }, 60_000)
    }
  }
  return cls
}
