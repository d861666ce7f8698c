// npm run bench:gc (after npm run build): what live sessions cost each young-generation garbage
// collection. One service (LOG_LEVEL=info, MAX_SESSIONS=1000000, node --trace-gc), pinned as in npm
// run bench, gets 200 sessions and 1,000,000 warming heartbeats, then is filled to 1,000 and to
// 1,000,000 live sessions in turn; at each size, after 10 s of unmeasured heartbeats, BENCH_SECONDS
// (default 8) of heartbeats rotating over the 200 sessions, with the scavenges V8 reports meanwhile.
// Printed per size: req/s, server CPU µs per request, scavenges, their total pause and its share
// per request. BENCH_NODE_FLAGS (say --max-semi-space-size=64) applies, as in npm run bench.
import autocannon from 'autocannon'
import { execFileSync } from 'node:child_process'
import { connections, createSessions, nodeFlags, pin, rotating, round, startService, stop, type Server } from './servers.js'
import { setting } from './settings.js'

const seconds = setting('BENCH_SECONDS', 8)
const SIZES = [1_000, 1_000_000]
const ROTATION = 200
/** A --trace-gc line's pause: `Scavenge 45.0 (64.5) -> 31.5 (64.5) MB, 0.53 / 0.00 ms`. */
const SCAVENGE = /Scavenge\b.*?MB, ([\d.]+) \/ [\d.]+ ms/

async function send (server: Server, amount: number, request: autocannon.Request): Promise<void> {
  const result = await autocannon({ url: server.url, connections, amount, requests: [request] })
  if (result.errors + result.timeouts + result.non2xx > 0) throw new Error(`${server.name}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx answers`)
}

let exitCode = 0
try {
  if (pin) execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' })
  process.stdout.write(`node ${process.version}, GET /heartbeat over ${ROTATION} sessions, ${seconds} s per size, ${connections} connections, ` +
    (pin ? 'server on core 0, load on core 1' : 'not pinned') + (nodeFlags.length > 0 ? `, server run with node ${nodeFlags.join(' ')}` : '') + '\n\n')
  const server = await startService('service', 'info', { MAX_SESSIONS: '1000000' }, undefined, ['--trace-gc'])
  let trace = ''
  server.child.stdout?.on('data', (chunk: string) => { trace += chunk })
  try {
    const sessions = await createSessions(server.url, ROTATION)
    const heartbeats = rotating('GET', '/heartbeat', sessions)
    await send(server, 1_000_000, heartbeats[0] as autocannon.Request)
    process.stdout.write('| live sessions | req/s | CPU µs/req | scavenges | their pauses, ms | pause µs per request |\n|---|---|---|---|---|---|\n')
    let size = ROTATION
    for (const target of SIZES) {
      process.stderr.write(`bench:gc: filling to ${target.toLocaleString('en-US')} sessions\n`)
      await send(server, target - size, { method: 'POST', path: '/challenger' })
      size = target
      await round({ server, requests: heartbeats }, 10)
      trace = ''
      const measured = await round({ server, requests: heartbeats }, seconds)
      const pauses = trace.split('\n').map(line => SCAVENGE.exec(line)?.[1]).filter(pause => pause !== undefined).map(Number)
      const total = pauses.reduce((sum, pause) => sum + pause, 0)
      const requests = measured.rps * seconds
      process.stdout.write(`| ${target.toLocaleString('en-US')} | ${Math.round(measured.rps).toLocaleString('en-US')} | ${measured.cpu.toFixed(2)} | ${pauses.length} | ` +
        `${total.toFixed(1)} | ${(total * 1000 / requests).toFixed(2)} |\n`)
    }
  } finally {
    await stop(server)
  }
} catch (error) {
  process.stderr.write(`bench:gc: ${(error as Error).message}\n`)
  exitCode = 1
}
process.exitCode = exitCode
