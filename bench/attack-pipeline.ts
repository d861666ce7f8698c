// node dist/bench/attack-pipeline.js (after npm run build): issue 34's pipelining attack at full
// size. ATTACK_CONNECTIONS (default 256) connections from 127.0.0.2 pipeline GET ATTACK_PATH
// (default /challenges) as fast as the server takes them and never read an answer; a connection
// the server closes is opened again at once. The server runs with --max-old-space-size=ATTACK_HEAP
// (default 1024). For ATTACK_SECONDS (default 30) its RSS is read from /proc every second, and
// 127.0.0.3 sends a heartbeat with a 1 s deadline; then the
// attack stops, and 127.0.0.3 sends a heartbeat every 100 ms for ATTACK_PROBE_SECONDS (default 5),
// each on a new connection with
// a 1 s deadline. ATTACK_AGAINST=<another build's dist/src/server.js> attacks that build instead.
// Prints the RSS curve and the heartbeats; exits 1 when the server died.
import { execFileSync } from 'node:child_process'
import { connect, type Socket } from 'node:net'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { heartbeat, rssMegabytes, startTarget, target } from './attack.js'
import { pin, stop } from './servers.js'
import { setting } from './settings.js'

const CONNECTIONS = setting('ATTACK_CONNECTIONS', 256)
const SECONDS = setting('ATTACK_SECONDS', 30)
const HEAP = setting('ATTACK_HEAP', 1024)
const PATH = process.env.ATTACK_PATH ?? '/challenges'
const PROBE_SECONDS = setting('ATTACK_PROBE_SECONDS', 5)

// 64 KiB of pipelined requests, written again whenever the socket takes it.
const request = `GET ${PATH} HTTP/1.1\r\nHost: x\r\n\r\n`
const burst = Buffer.from(request.repeat(Math.ceil(65_536 / request.length)))

if (pin) execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' })
const server = await startTarget([`--max-old-space-size=${HEAP}`])
const { hostname, port } = new URL(server.url)
const pid = server.child.pid
let died: string | undefined
server.child.on('exit', (code, signal) => { died = `exit code ${code}, signal ${signal}` })

let attacking = true
let opened = 0
let closedByServer = 0
const sockets = new Set<Socket>()

function attacker (): void {
  if (!attacking) return
  const socket = connect({ host: hostname, port: Number(port), localAddress: '127.0.0.2' })
  opened++
  sockets.add(socket)
  // Never read: the answers stay with the server.
  socket.pause()
  const send = (): void => {
    let more = true
    while (more) more = attacking && socket.write(burst)
  }
  socket.on('connect', send)
  socket.on('drain', send)
  socket.on('error', () => {})
  socket.on('close', () => {
    sockets.delete(socket)
    if (!attacking) return
    closedByServer++
    setImmediate(attacker)
  })
}

process.stdout.write(`node ${process.version}, ${target}, --max-old-space-size=${HEAP}: ${CONNECTIONS} connections from 127.0.0.2 pipelining GET ${PATH} without reading, ${SECONDS} s\n`)
process.stdout.write(`RSS before: ${rssMegabytes(pid)} MB\n`)
for (let i = 0; i < CONNECTIONS; i++) attacker()
const curve: string[] = []
for (let second = 1; second <= SECONDS; second++) {
  // Each second, a heartbeat from another address, with a 1 s deadline.
  const during = heartbeat(server.url, '127.0.0.3', 1000)
  await sleep(1000)
  const { ms, status, failure } = await during
  if (died !== undefined) break
  const rss = rssMegabytes(pid)
  curve.push(`${second}s ${rss ?? '-'}`)
  process.stdout.write(`  ${String(second).padStart(3)} s: RSS ${rss === undefined ? 'gone' : `${rss} MB`}, attack connections open ${sockets.size}, opened ${opened}, closed by the server ${closedByServer}; a heartbeat from 127.0.0.3: ${status ?? failure} (${ms} ms)\n`)
}
attacking = false
for (const socket of sockets) socket.destroy()
process.stdout.write(`RSS curve (MB): ${curve.join(', ')}\n`)

let exitCode = 0
if (died !== undefined) {
  process.stdout.write(`the server died during the attack (${died})\n`)
  exitCode = 1
} else {
  // Heartbeats from another address, every 100 ms for PROBE_SECONDS after the attack's end.
  const probes: Array<Promise<string>> = []
  const ended = performance.now()
  for (let i = 0; i < PROBE_SECONDS * 10; i++) {
    const at = Math.round(performance.now() - ended)
    probes.push(heartbeat(server.url, '127.0.0.3', 1000).then(({ ms, status, failure }) => `${at} ms: ${status ?? failure} (${ms} ms)`))
    await sleep(100)
  }
  const results = await Promise.all(probes)
  const firstGood = results.find(line => line.includes(': 204 ('))
  process.stdout.write(`heartbeats from 127.0.0.3 after the attack (sent at: answer (time taken)):\n  ${results.join('\n  ')}\n`)
  process.stdout.write(`first heartbeat answered 204 within 1 s: ${firstGood ?? 'none'}\n`)
  process.stdout.write(`RSS after: ${rssMegabytes(pid)} MB\n`)
  await stop(server)
}
process.exitCode = exitCode
