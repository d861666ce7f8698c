// Who a client is and how many connections it may hold; then the connection table that applies
// the limits, on a stand-in server with the clock in the test's hands (the attacks on a real
// server: test/http/connection-attacks.ts).
import { EventEmitter, once } from 'node:events'
import { connect, createServer as createNetServer, type AddressInfo, type Server, type Socket } from 'node:net'
import { performance } from 'node:perf_hooks'
import { PipeliningOffenders, sessionOf } from '../../src/domain/http/pipelining-offenders.js'
import t from 'tap'
import type { ServerResponse } from 'node:http'
import { connectionOf, lastOnItsConnection, limitConnections, type Answer, type Connection, type ConnectionLimits } from '../../src/domain/http/connection-table.js'
import { clientKey, ClientConnections, defaultMaxConnections, openFileLimit } from '../../src/domain/http/connections.js'

t.test('clientKey: IPv4 as it is, IPv4-mapped IPv6 as IPv4, other IPv6 by its /64', async t => {
  t.equal(clientKey('203.0.113.7'), '203.0.113.7')
  t.equal(clientKey('::ffff:127.0.0.2'), '127.0.0.2')
  t.equal(clientKey('::ffff:7f00:2'), '127.0.0.2', 'the mapped address in hex')
  t.equal(clientKey('::FFFF:192.0.2.255'), '192.0.2.255')
  t.equal(clientKey('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64')
  t.equal(clientKey('2001:db8:1:2::9'), '2001:db8:1:2::/64', 'another address of the same /64')
  t.equal(clientKey('2001:0DB8:0001:0002:ffff:0:0:1'), '2001:db8:1:2::/64', 'capitals and leading zeros')
  t.equal(clientKey('2001:db8:1:3::1'), '2001:db8:1:3::/64', 'the next /64 is another client')
  t.equal(clientKey('2001:db8::'), '2001:db8:0:0::/64')
  t.equal(clientKey('::1'), '0:0:0:0::/64')
  t.equal(clientKey('::'), '0:0:0:0::/64')
  t.equal(clientKey('fe80::1%eth0'), 'fe80:0:0:0::/64', 'the zone is dropped')
  t.equal(clientKey('64:ff9b::192.0.2.1'), '64:ff9b:0:0::/64', 'an IPv4 tail that is not a mapped address')
  t.equal(clientKey('::ffff:0:1.2.3.4'), '0:0:0:0::/64', 'not the mapped prefix')
  t.equal(clientKey(''), '')
  t.equal(clientKey('not an address'), 'not an address')
})

t.test('ClientConnections admits up to the limit per client and forgets a client with none open', async t => {
  const open = new ClientConnections(2)
  t.equal(open.admit('a'), true)
  t.equal(open.admit('a'), true)
  t.equal(open.admit('a'), false, 'the third of the same client')
  t.equal(open.count('a'), 2, 'a refused connection is not counted')
  t.equal(open.admit('b'), true, 'another client is not affected')
  open.release('a')
  t.equal(open.count('a'), 1)
  t.equal(open.admit('a'), true, 'a closed connection frees a place')
  open.release('a')
  open.release('a')
  open.release('b')
  t.equal(open.clients, 0)
  open.release('never seen')
  t.equal(open.count('never seen'), 0)
})

t.test('the default total is 10,000, or the open-file limit less 100 when that is lower', async t => {
  t.equal(defaultMaxConnections(undefined), 10_000)
  t.equal(defaultMaxConnections(1024), 924)
  t.equal(defaultMaxConnections(1_048_576), 10_000)
  t.equal(defaultMaxConnections(50), 1)
})

t.test('openFileLimit reads the soft limit from /proc/self/limits', async t => {
  const limits = (soft: string) => () => [
    'Limit                     Soft Limit           Hard Limit           Units     ',
    'Max processes             63704                63704                processes ',
    `Max open files            ${soft.padEnd(21)}524288               files     `
  ].join('\n')
  t.equal(openFileLimit(limits('1024')), 1024)
  t.equal(openFileLimit(limits('unlimited')), undefined)
  t.equal(openFileLimit(() => { throw new Error('ENOENT') }), undefined, 'not Linux')
  const here = openFileLimit()
  t.ok(here === undefined || (Number.isSafeInteger(here) && here > 0), `this machine: ${here}`)
})

// The connection table (src/domain/http/connection-table.ts).

/** A stand-in for a net.Server: an emitter, enough for a ConnectionTable. */
function fakeServer () {
  return new EventEmitter()
}

/** A stand-in for a net.Socket: its address, what it holds and has sent, and whether it was closed. */
function fakeSocket (remoteAddress: string | undefined) {
  return Object.assign(new EventEmitter(), {
    remoteAddress,
    writableLength: 0,
    bytesWritten: 0,
    bytesRead: 0,
    destroyed: false,
    endedSoon: false,
    destroy () { this.destroyed = true },
    destroySoon () { this.endedSoon = true }
  })
}

type FakeSocket = ReturnType<typeof fakeSocket>

const limits: ConnectionLimits = {
  perClient: 0,
  total: 0,
  firstHeadTimeout: 2_500,
  drainTimeout: 5_000,
  maxPipelined: 3,
  maxUnsentBytes: 1_000,
  abuserTimeout: 10_000,
  bodyGrace: 2_000,
  minBodyRate: 1_000,
  onLimit: () => {}
}

/** A table on a fake server with `overrides`, its clock at `clock.now`, and what its onLimit said. */
function table (overrides: Partial<ConnectionLimits> = {}) {
  const server = fakeServer()
  const said: Array<[string, string]> = []
  const clock = { now: 0 }
  const connections = limitConnections(server as unknown as Server, { ...limits, ...overrides, onLimit: (cap, client) => said.push([cap, client]) }, () => clock.now)
  const open = (address: string | undefined): FakeSocket => {
    const socket = fakeSocket(address)
    server.emit('connection', socket)
    return socket
  }
  const of = (socket: FakeSocket): Connection => connectionOf(socket as unknown as Socket) as Connection
  return { server, said, clock, connections, open, of }
}

/** An answer as the table sees it: waiting its turn (no socket) with `bytes`, or being written; its request whole. */
function answer (bytes = 0, socket: unknown = null): Answer {
  return { writableLength: bytes, socket, headersSent: false, req: { complete: true, readableLength: 0 } }
}

/** An answer not begun to a request whose body is still arriving (`unread`: bytes of it the app has not taken). */
function awaitingBody (unread = 0): Answer & { headersSent: boolean, req: { complete: boolean, readableLength: number } } {
  return { writableLength: 0, socket: null, headersSent: false, req: { complete: false, readableLength: unread } }
}

t.test('past perClient a client\'s new connection is destroyed at once, and said once; an IPv6 client is its /64', async t => {
  const { said, connections, open } = table({ perClient: 1 })
  const first = open('::ffff:10.0.0.1')
  const second = open('10.0.0.1')
  const third = open('10.0.0.1')
  const other = open('2001:db8:1:2::1')
  const sameSlash64 = open('2001:db8:1:2:ffff:ffff:ffff:ffff')
  const nextSlash64 = open('2001:db8:1:3::1')
  t.same([first, second, third, other, sameSlash64, nextSlash64].map(socket => socket.destroyed), [false, true, true, false, true, false])
  t.same(said, [['perClient', '10.0.0.1']], 'said once, not for every refused connection')
  t.equal(connections.perClient?.count('10.0.0.1'), 1)
  first.emit('close')
  t.equal(connections.perClient?.count('10.0.0.1'), 0, 'a closed connection frees its place')
  t.equal(open('10.0.0.1').destroyed, false)
  t.equal(open(undefined).destroyed, true, 'a connection whose client has already gone is dropped')
  t.equal(connections.open.size, 3)
})

t.test('without limits every connection is kept, a pipe\'s (no address) too', async t => {
  const { said, connections, open } = table()
  t.equal(connections.perClient, undefined, 'no per-client bookkeeping when that limit is off')
  const sockets = [open('10.0.0.1'), open('10.0.0.1'), open(undefined)]
  t.same(sockets.map(socket => socket.destroyed), [false, false, false])
  t.equal(connections.open.size, 3)
  t.same(said, [])
})

t.test('at total a new connection closes the oldest that has not spoken, else the oldest idle; all busy, it is refused', async t => {
  const { said, connections, open, of } = table({ total: 3, perClient: 10 })
  const a = open('10.0.0.1')
  const b = open('10.0.0.2')
  const c = open('10.0.0.3')
  // a is busy, b has spoken and is idle, c has not spoken.
  of(a).arrived(answer())
  of(b).arrived(answer())
  of(b).answered(answer())
  const d = open('10.0.0.4')
  t.same([a.destroyed, b.destroyed, c.destroyed, d.destroyed], [false, false, true, false], 'the silent one made room')
  t.same(said, [['total', '10.0.0.4']])
  of(d).arrived(answer())
  const e = open('10.0.0.5')
  t.same([a.destroyed, b.destroyed, e.destroyed], [false, true, false], 'then the idle one (the busy one is older)')
  of(e).arrived(answer())
  const f = open('10.0.0.6')
  t.equal(f.destroyed, true, 'every one busy: the new one is refused')
  t.equal(connections.perClient?.count('10.0.0.6'), 0, 'and not counted')
  t.equal(connections.busy, 3)
  of(d).answered(answer())
  const g = open('10.0.0.7')
  t.same([a.destroyed, d.destroyed, e.destroyed, g.destroyed], [false, true, false, false], 'the one that became idle, though younger than the busy a')
  t.same(said.length, 1, 'said once')
  a.emit('close')
  t.equal(connections.busy, 1, 'a busy connection that closes is no longer counted busy')
  t.equal(connections.open.size, 2)
})

t.test('a connection counts its requests in flight; past maxPipelined the later ones are refused and it closes after the earlier answers', async t => {
  const { connections, open, of } = table({ maxPipelined: 3 })
  const socket = open('10.0.0.1')
  const connection = of(socket)
  socket.writableLength = 7
  t.equal(connection.unsent(), 7, 'nothing in flight yet: the socket\'s bytes alone')
  socket.writableLength = 0
  const answers = [answer(10), answer(20), answer(30)]
  t.same(answers.map(a => connection.arrived(a)), [true, true, true])
  t.equal(connection.inFlight, 3)
  t.equal(connections.busy, 1)
  t.equal(connections.fresh.size, 0, 'it has spoken')
  socket.writableLength = 5
  t.equal(connection.unsent(), 5 + 20 + 30, 'the socket\'s bytes and those of the answers waiting their turn')
  t.equal(connection.arrived(answer()), false, 'the fourth is refused')
  t.equal(connection.closing, true)
  connection.answered(answers[0] as Answer)
  t.equal(connection.unsent(), 5 + 20 + 30, 'the next one, its socket not given yet, still waits')
  connection.answered(answers[1] as Answer)
  t.equal(socket.endedSoon, false)
  connection.answered(answers[2] as Answer)
  t.equal(socket.endedSoon, true, 'closed once the answers taken are out')
  t.equal(connections.busy, 0)
  t.equal(socket.destroyed, false)
})

t.test('a client that keeps pipelining is closed at once, refused for abuserTimeout, and its silent connections go too', async t => {
  const { said, clock, connections, open, of } = table({ maxPipelined: 2, abuserTimeout: 1_000, perClient: 10 })
  const socket = open('10.0.0.1')
  const silent = open('10.0.0.1')
  const other = open('10.0.0.2')
  const connection = of(socket)
  const taken = [connection.arrived(answer()), connection.arrived(answer())]
  t.same(taken, [true, true])
  t.equal(connection.arrived(answer()), false)
  t.equal(socket.destroyed, false, 'one past the bound: it closes once its answers are out')
  t.equal(connection.arrived(answer()), false)
  t.same([socket.destroyed, silent.destroyed, other.destroyed], [true, true, false], 'twice past: closed at once, with its silent connection')
  t.equal(connection.arrived(answer()), false, 'what it still sends is not served')
  connection.answered(answer())
  t.equal(connections.busy, 0, 'nor counted')
  t.same(said, [['pipelining', '10.0.0.1']])
  clock.now = 999
  t.equal(open('10.0.0.1').destroyed, true, 'its new connections are refused')
  t.equal(open('10.0.0.3').destroyed, false, 'others are not')
  clock.now = 1_000
  t.equal(open('10.0.0.1').destroyed, false, 'after abuserTimeout it is served again')
  const again = open('10.0.0.1')
  of(again).arrived(answer())
  of(again).arrived(answer())
  of(again).arrived(answer())
  of(again).arrived(answer())
  t.equal(again.destroyed, true)
  t.same(said.length, 1, 'said once')
  connections.sweep(clock.now + 999)
  t.equal(open('10.0.0.1').destroyed, true)
  connections.sweep(clock.now + 1_000)
  t.equal(open('10.0.0.1').destroyed, false, 'a sweep forgets the refusals that are over')
})

t.test('a sweep closes new connections without a head after firstHeadTimeout: silent ones without a word, others with the 408', async t => {
  const { server, clock, connections, open, of } = table({ firstHeadTimeout: 2_500 })
  const silent = open('10.0.0.1')
  const half = open('10.0.0.1')
  half.bytesRead = 20
  clock.now = 1_000
  const spoke = open('10.0.0.1')
  of(spoke).arrived(answer())
  const young = open('10.0.0.1')
  const errors: string[] = []
  server.on('clientError', (error: Error & { code?: string }) => errors.push(error.code as string))
  connections.sweep(2_499)
  t.same([silent.destroyed, half.destroyed], [false, false])
  connections.sweep(2_500)
  t.same([silent.destroyed, half.destroyed, half.endedSoon, spoke.destroyed, young.destroyed], [true, false, true, false, false])
  t.same(errors, ['ERR_HTTP_REQUEST_TIMEOUT'], 'half a head: the server\'s clientError handler answers 408')
  connections.sweep(3_500)
  t.equal(young.destroyed, true)
  t.equal(spoke.destroyed, false, 'one that has spoken is not concerned')
  const { connections: plain, open: openPlain } = table()
  const unanswered = openPlain('10.0.0.1')
  unanswered.bytesRead = 5
  plain.sweep(2_500)
  t.equal(unanswered.destroyed, true, 'no clientError handler: closed')
})

t.test('a sweep closes a connection whose client stopped taking its answers: past maxUnsentBytes, or nothing taken for drainTimeout', async t => {
  const { connections, open, of } = table({ drainTimeout: 5_000, maxUnsentBytes: 1_000 })
  // Each pipelines: an answer waits behind the one being written.
  const slow = open('10.0.0.1')
  of(slow).arrived(answer())
  of(slow).arrived(answer())
  const stuck = open('10.0.0.1')
  of(stuck).arrived(answer())
  of(stuck).arrived(answer())
  // One large answer read at the client's own pace: never closed for it.
  const single = open('10.0.0.1')
  of(single).arrived(answer())
  single.writableLength = 5_000
  single.bytesWritten = 5_000
  // The answer after the first has its socket: its bytes are in the socket's, not counted twice.
  const writing = open('10.0.0.1')
  of(writing).arrived(answer())
  of(writing).arrived(answer(900, writing))
  writing.writableLength = 300
  writing.bytesWritten = 300
  const hoarder = open('10.0.0.1')
  of(hoarder).arrived(answer())
  of(hoarder).arrived(answer(800))
  const idle = open('10.0.0.1')
  of(idle).arrived(answer())
  // The server has not answered `idle` yet: nothing waits on its client.
  slow.writableLength = 500
  slow.bytesWritten = 1_000
  stuck.writableLength = 500
  stuck.bytesWritten = 500
  hoarder.writableLength = 300
  connections.sweep(1_000)
  t.same([slow.destroyed, stuck.destroyed, hoarder.destroyed, idle.destroyed], [false, false, true, false], 'past maxUnsentBytes: closed at once')
  t.equal(writing.destroyed, false, 'an answer with its socket is counted once, in the socket')
  slow.bytesWritten = 1_200
  connections.sweep(5_999)
  t.same([slow.destroyed, stuck.destroyed], [false, false])
  t.equal(single.destroyed, false, 'one answer in flight, past maxUnsentBytes: not closed for that')
  connections.sweep(6_000)
  t.same([slow.destroyed, stuck.destroyed, single.destroyed], [false, true, true], 'nothing taken for drainTimeout: closed, one answer alone too; some taken: not yet')
  connections.sweep(10_998)
  t.equal(slow.destroyed, false, 'drainTimeout from the last bytes taken')
  slow.writableLength = 0
  connections.sweep(20_000)
  t.equal(slow.destroyed, false, 'all taken: not stalled')
  slow.writableLength = 10
  slow.bytesWritten = 1_210
  connections.sweep(21_000)
  connections.sweep(25_999)
  t.equal(slow.destroyed, false, 'stalled since it was first seen waiting again')
  connections.sweep(26_000)
  t.equal(slow.destroyed, true)
  t.equal(idle.destroyed, false)
})

t.test('at total a connection whose client moved nothing since the last sweep makes room, after the silent and idle ones; one that has moved since is passed over', async t => {
  const { clock, connections, open, of } = table({ total: 3 })
  // Not taking its answer, not sending its body, and waiting on the server.
  const reader = open('10.0.0.1')
  of(reader).arrived(answer())
  reader.writableLength = 100
  reader.bytesWritten = 100
  const sender = open('10.0.0.2')
  of(sender).arrived(awaitingBody())
  const working = open('10.0.0.3')
  of(working).arrived(answer())
  connections.sweep(clock.now)
  t.equal(connections.stalled.size, 0, 'first seen: not stalled yet')
  connections.sweep(clock.now + 250)
  t.same([...connections.stalled].map(socket => socket.remoteAddress), ['10.0.0.1', '10.0.0.2'], 'no progress at the second look: the reader and the sender; the one working is not')
  sender.bytesRead = 10
  const first = open('10.0.0.4')
  t.same([reader.destroyed, sender.destroyed, working.destroyed, first.destroyed], [true, false, false, false], 'the one stalled longest made room')
  of(first).arrived(answer())
  const second = open('10.0.0.5')
  t.same([sender.destroyed, second.destroyed], [false, true], 'the sender has moved since: kept; every other busy: refused')
  t.equal(connections.stalled.size, 0)
  connections.sweep(clock.now + 500)
  connections.sweep(clock.now + 750)
  t.equal(open('10.0.0.6').destroyed, false)
  t.equal(sender.destroyed, true, 'stalled again: it made room')
})

t.test('a body below minBodyRate once bodyGrace is over gets the 408 and its connection is closed; one the app has not read yet is the server\'s turn', async t => {
  const { server, connections, open, of } = table({ bodyGrace: 2_000, minBodyRate: 1_000 })
  const errors: string[] = []
  server.on('clientError', (error: Error & { code?: string }) => errors.push(error.code as string))
  const slow = open('10.0.0.1')
  of(slow).arrived(awaitingBody())
  const steady = open('10.0.0.1')
  of(steady).arrived(awaitingBody())
  const unread = open('10.0.0.1')
  of(unread).arrived(awaitingBody(5))
  const pipelined = open('10.0.0.1')
  of(pipelined).arrived(answer())
  of(pipelined).arrived(awaitingBody())
  const begun = open('10.0.0.1')
  const early = awaitingBody()
  of(begun).arrived(early)
  early.headersSent = true
  connections.sweep(1_000)
  slow.bytesRead = 1
  steady.bytesRead = 1_000
  connections.sweep(3_000)
  t.same([slow.endedSoon, slow.destroyed, pipelined.destroyed], [false, false, false], 'within bodyGrace')
  steady.bytesRead = 1_100
  connections.sweep(3_100)
  t.same([slow.endedSoon, pipelined.destroyed], [true, true], '1 byte in 2.1 s: closed; the 408 when its answer is the next out')
  t.same(errors, ['ERR_HTTP_REQUEST_TIMEOUT'], 'one 408, through the server\'s clientError handler')
  t.equal(steady.endedSoon || steady.destroyed, false, '1,100 bytes in 2.1 s: at the rate')
  connections.sweep(60_000)
  t.same([unread.destroyed, begun.destroyed], [false, false], 'a body the app has not taken yet, or one whose answer has begun: not the client\'s to hurry')
  t.equal(steady.endedSoon, true, 'and below it later')
  t.equal(connections.open.size, 2)
  const next = awaitingBody()
  of(unread).answered(answer())
  of(unread).arrived(next)
  connections.sweep(61_000)
  connections.sweep(62_999)
  t.equal(unread.destroyed, false, 'a new request on the connection: its own bodyGrace')
  connections.sweep(63_100)
  t.equal(unread.endedSoon, true)
  const { open: openFree, of: ofFree, connections: free } = table({ minBodyRate: 0 })
  const trickle = openFree('10.0.0.1')
  ofFree(trickle).arrived(awaitingBody())
  free.sweep(0)
  free.sweep(100_000)
  t.equal(trickle.destroyed, false, 'minBodyRate 0: no minimum')
})

t.test('lastOnItsConnection: Connection: close, and the connection refuses what follows', async t => {
  const { open, of } = table()
  const socket = open('10.0.0.1')
  const response = { shouldKeepAlive: true, req: { socket } }
  lastOnItsConnection(response as unknown as ServerResponse)
  t.equal(response.shouldKeepAlive, false)
  t.equal(of(socket).arrived(answer()), false, 'a request after it is not served')
  const untracked = { shouldKeepAlive: true, req: { socket: new EventEmitter() } }
  lastOnItsConnection(untracked as unknown as ServerResponse)
  t.equal(untracked.shouldKeepAlive, false, 'a socket no table keeps: the answer alone')
})

t.test('the table sweeps while its server listens, and stops when it closes', async t => {
  const server = createNetServer()
  limitConnections(server, { ...limits, firstHeadTimeout: 50, drainTimeout: 50 })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const client = connect(port, '127.0.0.1')
  client.on('error', () => {})
  const started = performance.now()
  await once(client, 'close')
  const took = performance.now() - started
  t.ok(took >= 40 && took < 1_000, `a silent connection closed after ${Math.round(took)} ms`)
  await new Promise(resolve => server.close(resolve))
})

t.test('pipelining offenders (CLASS=1): a session held for the timeout, the address after perClient offences, all forgotten by the sweep', async t => {
  let now = 1_000
  const offenders = new PipeliningOffenders(3, 10_000, () => now)
  t.equal(sessionOf({ 'x-challenger': ['Ab-1', 'other'] }), 'ab-1', 'the first value, in lowercase')
  t.equal(sessionOf({}), '')
  t.equal(sessionOf(undefined), '')
  t.equal(offenders.holds('10.0.0.1', 'ab-1'), false)
  t.equal(offenders.offend('10.0.0.1', 'ab-1'), 'session')
  t.equal(offenders.offend('10.0.0.1', ''), 'session', 'a connection that named none counts toward the address')
  t.equal(offenders.holds('10.0.0.1', 'ab-1'), true)
  t.equal(offenders.holds('10.0.0.2', 'ab-1'), false, 'per address')
  t.equal(offenders.holds('10.0.0.1', ''), false, 'no session: nothing to hold but the connection')
  t.equal(offenders.offend('10.0.0.1', 'cd-2'), 'client', 'the third within the timeout: the address')
  now += 10_000
  t.equal(offenders.holds('10.0.0.1', 'ab-1'), false, 'over after the timeout')
  offenders.sweep(now)
  t.equal(offenders.offend('10.0.0.1', 'ef-3'), 'session', 'the old offences are forgotten')
  now += 20_000
  offenders.sweep(now)
  t.equal(offenders.holds('10.0.0.1', 'ef-3'), false)
})
