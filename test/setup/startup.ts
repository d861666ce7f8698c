// What the process says once it listens (src/server.ts's start-up message): the addresses learners
// can use when it serves every interface, the store as found at start, the class preset, the landing
// page's QR code. The start-up block of a real process, at a terminal too: test/process.test.ts.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir, type NetworkInterfaceInfo } from 'node:os'
import { dirname, join } from 'node:path'
import type { AddressInfo } from 'node:net'
import QRCode from 'qrcode'
import t from 'tap'
import type { ServerConfig } from '../../src/domain/config/config.js'
import { learnerUrls, localNetworks, loopbackOnly } from '../../src/domain/http/addresses.js'
import { writeTokenFile } from '../../src/domain/config/token-file.js'
import { trustWarning } from '../../src/domain/config/trust-proxy.js'
import { MemoryStore } from '../../src/domain/sessions/memory-store.js'
import type { SessionStore } from '../../src/domain/sessions/store.js'
import { landingQr, main, startupMessage, storeAtStart, type StoreAtStart } from '../../src/server.js'

const v4 = (address: string, internal = false): NetworkInterfaceInfo =>
  ({ address, netmask: '255.255.255.0', family: 'IPv4', mac: '00:00:00:00:00:00', internal, cidr: `${address}/24` })
const v6 = (address: string, internal = false): NetworkInterfaceInfo =>
  ({ address, netmask: 'ffff:ffff:ffff:ffff::', family: 'IPv6', mac: '00:00:00:00:00:00', internal, cidr: `${address}/64`, scopeid: 0 })

// A laptop in a classroom: loopback, a docker bridge listed before the wired and wireless networks.
const laptop = {
  lo: [v4('127.0.0.1', true), v6('::1', true)],
  docker0: [v4('172.17.0.1')],
  eth0: [v4('192.168.1.20'), v6('fe80::1c2b:3aff:fe4d:5e6f'), v6('2001:db8::20')],
  wlan0: [v4('10.0.0.5'), v4('10.0.0.5')]
}

t.test('bound to 0.0.0.0, learners get every IPv4 address but loopback, the machine\'s own networks before a container bridge', async t => {
  t.same(learnerUrls('0.0.0.0', 3000, laptop), ['http://192.168.1.20:3000', 'http://10.0.0.5:3000', 'http://172.17.0.1:3000'])
})

t.test('bound to ::, the IPv6 addresses too, in brackets, but not link-local ones (a URL carries no zone)', async t => {
  const urls = ['http://192.168.1.20:3000', 'http://[2001:db8::20]:3000', 'http://10.0.0.5:3000', 'http://172.17.0.1:3000']
  for (const host of ['::', '::0', '0:0:0:0:0:0:0:0']) t.same(learnerUrls(host, 3000, laptop), urls, host)
})

t.test('bound to one address, the listener\'s own address says it: no list', async t => {
  for (const host of ['127.0.0.1', '192.168.1.20', 'localhost', '::1', 'example.test']) t.equal(learnerUrls(host, 3000, laptop), undefined, host)
  t.same(learnerUrls('0.0.0.0', 3000, { lo: [v4('127.0.0.1', true)], eth0: undefined }), [], 'no network: none')
  t.ok(Array.isArray(learnerUrls('0.0.0.0', 3000)), 'this machine\'s own interfaces by default')
})

t.test('loopback is 127.0.0.0/8, ::1 and localhost', async t => {
  for (const host of ['127.0.0.1', '127.1.2.3', '::1', 'localhost']) t.equal(loopbackOnly(host), true, host)
  for (const host of ['0.0.0.0', '::', '192.168.1.20', '127.example.test', 'localhost.example.test']) t.equal(loopbackOnly(host), false, host)
})

const config = (app: ServerConfig['app'] = {}, more: Partial<ServerConfig> = {}): ServerConfig => ({ port: 3000, host: '0.0.0.0', logLevel: 'info', app, ...more })

t.test('bound to every interface, the message leads with an address learners can use, and lists them all', async t => {
  const addresses = ['http://192.168.1.20:3000', 'http://10.0.0.5:3000']
  const [fields, message] = startupMessage('http://127.0.0.1:3000', config({ adminToken: 'instructor-token-0123456789' }), { addresses })
  t.same(fields, {
    address: 'http://192.168.1.20:3000',
    addresses,
    landingPage: 'http://192.168.1.20:3000/',
    docs: 'http://192.168.1.20:3000/docs',
    mode: 'multi-player (a session per learner)',
    store: 'memory (sessions end with the process)',
    board: 'http://192.168.1.20:3000/admin'
  })
  t.equal(message, 'API Challenges practice target ready: curl -i -X POST http://192.168.1.20:3000/challenger')
  t.notMatch(JSON.stringify(fields), /127\.0\.0\.1|instructor-token/, 'nothing only this machine can use, and a token the instructor chose is never said')
  const [alone] = startupMessage('http://127.0.0.1:3000', config(), { addresses: [] })
  t.equal(alone.address, 'http://127.0.0.1:3000', 'without a network, this machine\'s')
  t.equal(alone.addresses, 'none but this machine\'s: no network interface is up')
})

t.test('with PUBLIC_URL, the message leads with it, for the landing page, docs, the board and the first request; the listener\'s addresses are still listed', async t => {
  const addresses = ['http://10.88.0.38:3000']
  const publicUrl = 'http://192.168.1.20:8080'
  const [fields, message] = startupMessage('http://127.0.0.1:3000', config({ adminToken: 'instructor-token-0123456789' }, { publicUrl }), { addresses })
  t.same(fields, {
    address: publicUrl,
    addresses,
    landingPage: `${publicUrl}/`,
    docs: `${publicUrl}/docs`,
    mode: 'multi-player (a session per learner)',
    store: 'memory (sessions end with the process)',
    board: `${publicUrl}/admin`
  })
  t.equal(message, `API Challenges practice target ready: curl -i -X POST ${publicUrl}/challenger`)
  const [behind] = startupMessage('http://127.0.0.1:3000', config({}, { host: '127.0.0.1', publicUrl: 'https://class.example/api-challenges' }))
  t.same([behind.address, behind.landingPage, behind.docs], ['https://class.example/api-challenges', 'https://class.example/api-challenges/', 'https://class.example/api-challenges/docs'], 'with a path, bound to one address')
  t.notOk('addresses' in behind)
})

t.test('the store line says a Redis not reachable yet, and the live sessions a reachable one holds at start', async t => {
  const redis = config({ redisUrl: 'redis://:s3cret@cache:6379', redisKeyPrefix: 'course-a:' })
  const store = (found: StoreAtStart) => startupMessage('http://127.0.0.1:3000', redis, { store: found })[0].store
  t.equal(store({ reachable: false }), 'Redis at cache:6379, keys course-a:*: not reachable yet; requests that need a session, and GET /heartbeat, answer 503 until it is (the log says when)')
  t.equal(store({ reachable: true, live: 0 }), 'Redis at cache:6379, keys course-a:*; no live session there at start')
  t.equal(store({ reachable: true, live: 1 }), 'Redis at cache:6379, keys course-a:*; 1 live session there at start')
  t.equal(store({ reachable: true, live: 1234 }), 'Redis at cache:6379, keys course-a:*; 1234 live sessions there at start')
  t.equal(store({ reachable: true }), 'Redis at cache:6379, keys course-a:*')
  t.equal(startupMessage('http://127.0.0.1:3000', config(), { store: { reachable: true } })[0].store, 'memory (sessions end with the process)')
})

t.test('with CLASS=1, the message says what the preset set and kept, and the admin token it made, once', async t => {
  const preset = { set: ['SESSION_IDLE_MS=10800000', 'HOST=0.0.0.0'], kept: ['CREATION_RATE_LIMIT'], adminTokenMade: true }
  const [fields] = startupMessage('http://127.0.0.1:3000', config({ adminToken: 'made-0123456789abcdef' }, { preset }), { addresses: ['http://192.168.1.20:3000'], adminTokenFile: '/tmp/api-challenges-x/admin-token' })
  t.equal(fields.class, 'on (CLASS=1): set SESSION_IDLE_MS=10800000, HOST=0.0.0.0, a new ADMIN_TOKEN (adminToken, below, says where to read it); kept as given: CREATION_RATE_LIMIT')
  t.equal(fields.adminToken, 'in /tmp/api-challenges-x/admin-token, which only you can read (not in this block, which the room may see): paste it into the board\'s page; the file goes when the server stops')
  t.same(Object.keys(fields).slice(-3), ['board', 'class', 'adminToken'], 'where to read the token, right below the board\'s address')
  t.notMatch(JSON.stringify(fields), /made-0123456789abcdef/, 'never the token itself: the block is meant for the projector (issue 58)')
  const [apart] = startupMessage('http://127.0.0.1:3000', config({ adminToken: 'made-0123456789abcdef' }, { preset }))
  t.equal(apart.adminToken, 'printed apart, on standard error (no file could be written): not in this block, which the room may see')

  const given = { set: [], kept: ['SESSION_IDLE_MS', 'ADMIN_TOKEN'], adminTokenMade: false }
  const [own] = startupMessage('http://127.0.0.1:3000', config({ adminToken: 'the-instructors-own-token' }, { preset: given }))
  t.equal(own.class, 'on (CLASS=1): nothing to set; kept as given: SESSION_IDLE_MS, ADMIN_TOKEN')
  t.notOk('adminToken' in own, 'a token the instructor gave is never said')
  t.notMatch(JSON.stringify(own), /the-instructors-own-token/)
  const [none] = startupMessage('http://127.0.0.1:3000', config({}, { preset: { set: ['HOST=0.0.0.0'], kept: [], adminTokenMade: false } }))
  t.equal(none.class, 'on (CLASS=1): set HOST=0.0.0.0')
})

t.test('the store at start: the memory store answers; a store across the network says whether it does, and counts its live sessions once', async t => {
  const memory = new MemoryStore()
  t.teardown(() => memory.close())
  await memory.create()
  t.same(await storeAtStart(memory), { reachable: true }, 'in memory: nothing to count at start')
  let counted = 0
  const remote = (available: boolean, counts: () => Promise<{ live: number, active: number }>): SessionStore =>
    Object.assign(Object.create(memory) as SessionStore, { description: 'Redis at cache:6379', available: () => available, counts: async () => { counted++; return await counts() } })
  t.same(await storeAtStart(remote(false, async () => ({ live: 3, active: 0 }))), { reachable: false })
  t.equal(counted, 0, 'nothing asked of a store that does not answer')
  t.same(await storeAtStart(remote(true, async () => ({ live: 3, active: 0 }))), { reachable: true, live: 3 })
  t.same(await storeAtStart(remote(true, async () => { throw new Error('gone') })), { reachable: false }, 'gone since')
  t.equal(counted, 2)
  // Its first connection later than the app waited for (a busy machine): one more connect timeout for it.
  let up = false
  const late = Object.assign(remote(false, async () => ({ live: 5, active: 0 })), { available: () => up, connected: async () => { up = true } })
  t.same(await storeAtStart(late), { reachable: true, live: 5 }, 'up once connected')
})

t.test('the landing page\'s QR code, for a terminal, under a line that names the page', async t => {
  const url = 'http://192.168.1.20:3000/'
  const said = await landingQr(url)
  t.equal(said, `\nThe landing page, ${url}, for a phone's camera:\n${await QRCode.toString(url, { type: 'terminal', small: true })}`)
  t.match(said, /▄▄▄▄▄▄▄/, 'half blocks: two rows of modules a line')
})

/** What `start` wrote on stderr, and what it resolved with. */
async function stderrOf<T> (start: () => Promise<T>): Promise<[T, string]> {
  const write = process.stderr.write
  let text = ''
  process.stderr.write = ((chunk: string) => { text += chunk; return true }) as typeof write
  try {
    return [await start(), text]
  } finally {
    process.stderr.write = write
  }
}

t.test('CLASS=1 serves a room behind one address: 100 sessions in a minute from one client, the board with the given token', async t => {
  const token = 'the-instructors-own-token'
  const app = await main({ CLASS: '1', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent', ADMIN_TOKEN: token })
  t.teardown(() => app?.close())
  const base = `http://127.0.0.1:${(app?.server.address() as AddressInfo).port}`
  const created = await Promise.all(Array.from({ length: 100 }, async () => (await fetch(`${base}/challenger`, { method: 'POST' })).status))
  t.same(created.filter(status => status !== 201), [], 'none refused (the default limit is 60 a minute)')
  const summary = await fetch(`${base}/admin/summary`, { headers: { authorization: `Bearer ${token}` } })
  t.equal(summary.status, 200)
  t.equal((await summary.json() as { live: number }).live, 100)
})

t.test('CLASS=1 at a log level that would hide the token it makes does not start, in one line', async t => {
  const [app, said] = await stderrOf(() => main({ CLASS: '1', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent' }))
  t.equal(app, undefined)
  t.equal(said, 'api-challenges: CLASS=1 makes the admin token and says it in the start-up message, which LOG_LEVEL=silent hides; set ADMIN_TOKEN yourself, or LOG_LEVEL=info\n')
})

t.test('a store that cannot be made stops start-up with one line, as a listen that fails does', async t => {
  const { main: mocked } = await t.mockImport<typeof import('../../src/server.js')>('../../src/server.js', {
    '../../src/domain/sessions/stores.js': { createStore: () => { throw new Error('the Redis scripts are not in dist/') } }
  })
  const [app, said] = await stderrOf(() => mocked({ PORT: '0', LOG_LEVEL: 'silent' }))
  t.equal(app, undefined)
  t.equal(said, 'api-challenges: could not start on 127.0.0.1:0: the Redis scripts are not in dist/\n')
})

t.test('CLASS=1\'s made admin token goes to a file only its user reads, in a folder of its own, removed at exit (issue 58)', async t => {
  const under = mkdtempSync(join(tmpdir(), 'token-test-'))
  t.teardown(() => rmSync(under, { recursive: true, force: true }))
  let remove: (() => void) | undefined
  const file = writeTokenFile('made-0123456789abcdef', under, done => { remove = done })
  t.match(file, new RegExp(`^${under}/api-challenges-[^/]+/admin-token$`))
  t.equal(readFileSync(file, 'utf8'), 'made-0123456789abcdef\n')
  t.equal(statSync(file).mode & 0o777, 0o600, 'only its user reads it')
  t.equal(statSync(dirname(file)).mode & 0o777, 0o700, 'in a folder only its user opens')
  remove?.()
  t.notOk(existsSync(dirname(file)), 'gone at exit')
})

t.test('TRUST_PROXY that the machines of the network could use is warned of at start-up; behind loopback it is not (issue 58)', async t => {
  const nets = ['192.168.1.0/24']
  t.match(trustWarning(1, '0.0.0.0', nets), /^TRUST_PROXY=1 believes the X-Forwarded-For of whatever connects, and HOST=0\.0\.0\.0 lets every machine that reaches this one connect: any of them can name any client in X-Forwarded-For/)
  t.match(trustWarning('uniquelocal', '0.0.0.0', nets), /^TRUST_PROXY=uniquelocal trusts every address of 192\.168\.1\.0\/24, a network learners' machines can use/)
  t.match(trustWarning('192.168.1.0/24', '192.168.1.20', nets), /every address of 192\.168\.1\.0\/24/, 'the network this machine is on')
  t.match(trustWarning('10.0.0.0/8', '::', []), /every address of 10\.0\.0\.0\/8/, 'a private range, whatever this machine\'s networks')
  t.match(trustWarning('192.168.0.0/17,192.168.128.0/17', '0.0.0.0', []), /every address of 192\.168\.0\.0\/16/, 'in parts too')
  t.equal(trustWarning('192.168.1.5', '0.0.0.0', nets), undefined, 'the proxy\'s own address')
  t.equal(trustWarning('loopback', '0.0.0.0', nets), undefined, 'loopback: no machine of the network is in it')
  t.equal(trustWarning(1, '127.0.0.1', nets), undefined, 'listening on loopback: only what runs here connects')
  t.equal(trustWarning('uniquelocal', 'localhost', nets), undefined)
  t.equal(trustWarning(false, '0.0.0.0', nets), undefined)
  t.equal(trustWarning(undefined, '0.0.0.0', nets), undefined, 'unset: nobody is trusted')
  t.same(localNetworks({ lo: [{ address: '127.0.0.1', netmask: '255.0.0.0', family: 'IPv4', mac: '', internal: true, cidr: '127.0.0.1/8' }], eth0: [{ address: '192.168.1.20', netmask: '255.255.255.0', family: 'IPv4', mac: '', internal: false, cidr: '192.168.1.20/24' }, { address: '10.9.9.9', netmask: 'bad', family: 'IPv4', mac: '', internal: false, cidr: null }], wg0: undefined }), ['192.168.1.20/24'], 'loopback and an interface without a CIDR left out')
})
