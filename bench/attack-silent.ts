// node dist/bench/attack-silent.js (after npm run build): issue 34's silent-socket flood at full
// size. ATTACK_ADDRESSES (default 45) addresses from 127.0.0.2 up each open ATTACK_PER_ADDRESS
// (default 256) connections that never send a byte, at the server's default limits, and open one
// again whenever the server closes one. After ATTACK_SETTLE seconds (default 5), 20 heartbeats from
// 127.0.0.200, all at once, each on a new connection with a 3 s deadline. ATTACK_AGAINST=<another
// build's dist/src/server.js> attacks that build instead. Prints the heartbeats; exits 1 when one failed.
import { execFileSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { heartbeat, startTarget, target } from './attack.js'
import { pin, stop } from './servers.js'
import { setting } from './settings.js'

const ADDRESSES = setting('ATTACK_ADDRESSES', 45)
const PER_ADDRESS = setting('ATTACK_PER_ADDRESS', 256)
const SETTLE = setting('ATTACK_SETTLE', 5)

if (pin) execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' })
const server = await startTarget([])
const { hostname, port } = new URL(server.url)
let attacking = true
let opened = 0
let closedByServer = 0
const sockets = new Set<Socket>()

function silent (from: string): void {
  if (!attacking) return
  const socket = connect({ host: hostname, port: Number(port), localAddress: from })
  opened++
  sockets.add(socket)
  socket.on('error', () => {})
  socket.on('close', () => {
    sockets.delete(socket)
    if (!attacking) return
    closedByServer++
    // Opened again, a moment later: a real attacker keeps its sockets up.
    setTimeout(() => silent(from), 10)
  })
}

const descriptors = (): number => {
  try {
    return readdirSync(`/proc/${server.child.pid}/fd`).length
  } catch {
    return NaN
  }
}

process.stdout.write(`node ${process.version}, ${target}: ${ADDRESSES} addresses × ${PER_ADDRESS} connections that never send a byte, opened again when closed\n`)
for (let address = 2; address < 2 + ADDRESSES; address++) {
  for (let i = 0; i < PER_ADDRESS; i++) silent(`127.0.0.${address}`)
  // A little at a time, so that the listen queue does not overflow.
  await sleep(20)
}
for (let second = 1; second <= SETTLE; second++) {
  await sleep(1000)
  process.stdout.write(`  ${second} s: attack sockets open ${sockets.size}, opened ${opened}, closed by the server ${closedByServer}, server descriptors ${descriptors()}\n`)
}
const results = await Promise.all(Array.from({ length: 20 }, async () => await heartbeat(server.url, '127.0.0.200', 3000)))
const good = results.filter(result => result.status === '204')
process.stdout.write(`20 heartbeats from 127.0.0.200 during the flood: ${good.length} answered 204 within 3 s\n  ${results.map(({ ms, status, failure }) => `${status ?? failure} (${ms} ms)`).join('\n  ')}\n`)
attacking = false
for (const socket of sockets) socket.destroy()
await stop(server)
process.exitCode = good.length === 20 ? 0 : 1
