// npm run bench:processes: how far a fresh process's speed moves, with nothing else changed. The
// service (silent, then info) and the baseline (off, then info) are each started BENCH_PROCESSES times
// (default 8), pinned as in npm run bench, and sent GET /heartbeat with one session's X-CHALLENGER:
// a 1 s warm-up, then three rounds of BENCH_SECONDS (default 3), the load generator spinning. One
// line per process: req/s and server CPU µs per request of each round. Rounds of one process agree
// with each other; processes of one build need not (2026-11-26: 60,000 or 75,000 heartbeats a
// second). That is why every row of npm run bench is measured on several fresh processes.
import { execFileSync } from 'node:child_process'
import { connections, here, pin, round, start, startService, stop, type Server } from './servers.js'
import { setting } from './settings.js'

const count = setting('BENCH_PROCESSES', 8)
const seconds = setting('BENCH_SECONDS', 3)

async function measure (server: Server, guid: string, duration: number): Promise<string> {
  const { rps, cpu } = await round({ server, requests: [{ method: 'GET', path: '/heartbeat', headers: { 'x-challenger': guid } }] }, duration)
  return `${Math.round(rps).toLocaleString('en-US')} req/s ${cpu.toFixed(1)} µs`
}

const kinds: Array<[string, () => Promise<Server>]> = [
  ['service, LOG_LEVEL=silent', async () => await startService('service (silent)', 'silent')],
  ['baseline, logger off', async () => await start('baseline (off)', here('./baseline-fastify.js'), { BASELINE_LOGGER: 'off' })],
  ['service, LOG_LEVEL=info', async () => await startService('service (info)', 'info')],
  ['baseline, logger info', async () => await start('baseline (info)', here('./baseline-fastify.js'), { BASELINE_LOGGER: 'info' })]
]

let exitCode = 0
try {
  if (pin) execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' })
  process.stdout.write(`node ${process.version}, GET /heartbeat, ${count} fresh processes each, 1 s warm-up then 3 rounds of ${seconds} s, ${connections} connections, ` +
    (pin ? 'servers on core 0, load on core 1' : 'not pinned') + '\n')
  for (const [name, open] of kinds) {
    process.stdout.write(`\n${name}\n`)
    for (let i = 1; i <= count; i++) {
      const server = await open()
      try {
        // The service answers a heartbeat with a session; the baseline echoes any X-CHALLENGER.
        const created = await fetch(`${server.url}/challenger`, { method: 'POST' })
        await created.arrayBuffer()
        const guid = created.headers.get('x-challenger') ?? '00000000-0000-4000-8000-000000000000'
        await measure(server, guid, 1)
        const rounds: string[] = []
        for (let r = 0; r < 3; r++) rounds.push(await measure(server, guid, seconds))
        process.stdout.write(`  process ${i}: ${rounds.join(' | ')}\n`)
      } finally {
        await stop(server)
      }
    }
  }
} catch (error) {
  process.stderr.write(`bench: ${(error as Error).message}\n`)
  exitCode = 1
}
process.exitCode = exitCode
