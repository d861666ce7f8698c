// Guessing the admin token (issue 34): wrong tokens are limited per client address, with one
// warning per burst, in one process and across instances sharing a Redis.
import Fastify, { type FastifyInstance } from 'fastify'
import { randomBytes } from 'node:crypto'
import { Agent, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { ADMIN_GUESSES } from '../../plugins/admin.js'
import app, { type ApiChallengesOptions } from '../../src/app.js'
import { configFromEnv } from '../../src/domain/config/config.js'
import { ADMIN_TOKEN_PATTERN } from '../../src/domain/config/options.js'
import { RedisStore } from '../../src/domain/sessions/redis-store.js'
import { MemoryStore } from '../../src/domain/sessions/memory-store.js'
import type { CreationCount } from '../../src/domain/sessions/store.js'
import { fakeTime } from '../clock.js'
import { redisMissing, redisServer } from '../redis-server.js'
import { until } from '../until.js'

const TOKEN = 'instructor-token-0123456789'
const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` })

/** The service on its own Fastify, with every line it logs (JSON) in `lines`. */
async function service (t: Test, options: ApiChallengesOptions): Promise<{ server: FastifyInstance, lines: string[] }> {
  const lines: string[] = []
  const server = Fastify({ logger: { level: 'debug', stream: { write: (line: string) => { lines.push(line) } } } })
  t.teardown(() => server.close())
  await server.register(app, { adminToken: TOKEN, ...options })
  await server.ready()
  return { server, lines }
}

/** The warnings among the JSON log lines. */
const warningsIn = (lines: string[]): string[] => lines.map(line => JSON.parse(line) as { level: number, msg: string }).filter(line => line.level === 40).map(line => line.msg)

/** GET `path` over `agent` (which names the source address): the status and the Retry-After. */
async function get (agent: Agent, port: number, path: string, headers: Record<string, string>): Promise<[number, string | undefined]> {
  return await new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, agent, headers }, res => {
      res.resume()
      res.on('end', () => resolve([res.statusCode as number, res.headers['retry-after']]))
    }).on('error', reject).end()
  })
}

t.test('the attack: 200 wrong tokens from one address are 10 × 403 then 429 with Retry-After, logged once; the right token is refused there and works from another address', async t => {
  const { server, lines } = await service(t, {})
  await server.listen({ port: 0, host: '127.0.0.1' })
  const port = (server.server.address() as AddressInfo).port
  const attacker = new Agent({ keepAlive: true, maxSockets: 4, localAddress: '127.0.0.2' })
  t.teardown(() => attacker.destroy())
  const answers = await Promise.all(Array.from({ length: 200 }, async (_, i) => await get(attacker, port, '/admin/summary', bearer(`guess-number-${i}-of-many`))))
  const statuses = answers.map(([status]) => status)
  t.equal(statuses.filter(status => status === 403).length, ADMIN_GUESSES, 'ten wrong tokens are told so')
  t.equal(statuses.filter(status => status === 429).length, 200 - ADMIN_GUESSES, 'the rest are refused')
  const waits = answers.filter(([status]) => status === 429).map(([, wait]) => Number(wait))
  t.ok(waits.every(wait => wait >= 1 && wait <= 60), 'each with Retry-After, in seconds, within the minute')
  t.equal(await get(attacker, port, '/admin/summary', bearer(TOKEN)).then(([status]) => status), 429, 'the right token from that address is refused too')
  t.equal(await get(attacker, port, '/metrics', bearer(TOKEN)).then(([status]) => status), 429, 'on every admin route')
  const instructor = new Agent({ keepAlive: true, localAddress: '127.0.0.3' })
  t.teardown(() => instructor.destroy())
  t.equal(await get(instructor, port, '/admin/summary', bearer(TOKEN)).then(([status]) => status), 200, 'and works from another address')
  t.equal(await get(instructor, port, '/admin/summary', bearer('wrong-but-long-enough')).then(([status]) => status), 403, 'where wrong tokens are counted apart')
  const warned = warningsIn(lines)
  t.equal(warned.length, 1, 'one warning for the burst')
  t.match(warned[0], /^10 wrong admin tokens from 127\.0\.0\.2 within a minute: its admin requests are refused \(429\) for (59|60) s$/)
  t.notOk(lines.some(line => line.includes(TOKEN) || line.includes('guess-number')), 'no token in the log, right or wrong')
})

t.test('the window, by the store\'s clock: Retry-After counts down, the address may try again a minute after its first wrong token, and a new burst is logged again', async t => {
  const time = fakeTime()
  const { server, lines } = await service(t, { store: new MemoryStore({ now: time.now, every: time.every }) })
  const from = { remoteAddress: '192.0.2.7' }
  const admin = async (token: string) => await server.inject({ method: 'GET', url: '/admin/summary', headers: bearer(token), ...from })
  for (let i = 0; i < ADMIN_GUESSES; i++) {
    t.equal((await admin(`wrong-token-number-${i}`)).statusCode, 403)
    time.advance(1000)
  }
  t.equal((await admin(TOKEN)).statusCode, 429, 'refused once ten are counted, the right token too')
  const refused = await admin('one-more-wrong-token')
  t.equal(refused.statusCode, 429)
  t.equal(refused.headers['retry-after'], '50', 'the window opened 10 s ago')
  t.same(refused.json(), { errorMessages: ['Too many wrong admin tokens from this address: try again in 50 s'] })
  time.advance(49_000)
  t.equal((await admin(TOKEN)).headers['retry-after'], '1')
  time.advance(1000)
  t.equal((await admin(TOKEN)).statusCode, 200, 'a minute after the first wrong token: the right one works')
  t.equal((await admin('wrong-again-after-the-window')).statusCode, 403, 'and a wrong one is counted in a new window')
  for (let i = 1; i < ADMIN_GUESSES; i++) await admin(`wrong-token-again-${i}`)
  t.equal((await admin(TOKEN)).statusCode, 429)
  t.same(warningsIn(lines), [
    '10 wrong admin tokens from 192.0.2.7 within a minute: its admin requests are refused (429) for 51 s',
    '10 wrong admin tokens from 192.0.2.7 within a minute: its admin requests are refused (429) for 60 s'
  ], 'one warning per burst')
})

t.test('only wrong tokens count: none, another scheme and the right token do not; an IPv6 /64 is one client', async t => {
  const { server } = await service(t, {})
  const admin = async (headers: Record<string, string>, remoteAddress = '192.0.2.8') => (await server.inject({ method: 'GET', url: '/admin/summary', headers, remoteAddress })).statusCode
  for (let i = 0; i < 3 * ADMIN_GUESSES; i++) {
    t.equal(await admin({}), 401)
    t.equal(await admin({ authorization: `Basic ${Buffer.from(`admin:${TOKEN}x`).toString('base64')}` }), 401)
    t.equal(await admin(bearer(TOKEN)), 200)
  }
  for (let i = 0; i < ADMIN_GUESSES; i++) t.equal(await admin(bearer(`wrong-token-${i}-xxxxxxxx`), `2001:db8:0:1::${i + 1}`), 403)
  t.equal(await admin(bearer(TOKEN), '2001:db8:0:1::ffff'), 429, 'another address of the same /64 is the same client')
  t.equal(await admin(bearer(TOKEN), '2001:db8:0:2::1'), 200, 'the next /64 is another')
})

/** A memory store whose counts, once held, wait until released: a store that hangs while it still seems up. */
class HeldCounts extends MemoryStore {
  asked = 0
  held = false
  readonly #waiting: Array<() => void> = []

  override async countCreation (client: string, windowMs: number, add: 0 | 1 = 1): Promise<CreationCount> {
    this.asked++
    if (this.held) await new Promise<void>(resolve => { this.#waiting.push(resolve) })
    return await super.countCreation(client, windowMs, add)
  }

  release (): void {
    this.held = false
    for (const resolve of this.#waiting.splice(0)) resolve()
  }
}

t.test('the right token waits on no store: /metrics answers while the counts hang; an address this process saw at the limit is asked after', async t => {
  const store = new HeldCounts()
  const { server } = await service(t, { store })
  const scrape = async (token: string, remoteAddress: string) => await server.inject({ method: 'GET', url: '/metrics', headers: bearer(token), remoteAddress })
  for (let i = 0; i < ADMIN_GUESSES; i++) t.equal((await scrape(`wrong-token-number-${i}`, '192.0.2.21')).statusCode, 403)
  const counted = store.asked
  t.equal(counted, ADMIN_GUESSES, 'each wrong token counted in the store')
  store.held = true
  t.ok(store.available(), 'the store still seems up')
  for (let i = 0; i < 5; i++) t.equal((await scrape(TOKEN, '192.0.2.20')).statusCode, 200, `scrape ${i + 1} answered`)
  t.equal(store.asked, counted, 'without asking the store')
  // The address at the limit: its right token waits for the store's count, which says it is still refused.
  let answered: number | undefined
  const refused = scrape(TOKEN, '192.0.2.21').then(res => { answered = res.statusCode })
  await until('the store asked', () => store.asked === counted + 1)
  t.equal(answered, undefined, 'waiting for the store')
  store.release()
  await refused
  t.equal(answered, 429)
})

t.test('a token made by `openssl rand -hex 24` (48 hex digits) is a good admin token', async t => {
  const made = randomBytes(24).toString('hex')
  t.match(made, /^[0-9a-f]{48}$/)
  t.ok(ADMIN_TOKEN_PATTERN.test(made))
  t.equal(configFromEnv({ ADMIN_TOKEN: made }).app.adminToken, made)
})

if (redisMissing !== false && process.env.CI === 'true') {
  t.fail(redisMissing)
} else {
  t.test('with Redis', { skip: redisMissing }, async t => {
    const redis = await redisServer(['--appendonly', 'no'])
    t.teardown(() => redis.remove())

    t.test('two instances on one Redis count together: the 11th wrong token on either is 429, the right one is refused on both, and only one warns', async t => {
      const redisKeyPrefix = 'guess:'
      const one = await service(t, { redisUrl: redis.url, redisKeyPrefix })
      const two = await service(t, { redisUrl: redis.url, redisKeyPrefix })
      const admin = async (instance: FastifyInstance, token: string, remoteAddress = '192.0.2.9') =>
        await instance.inject({ method: 'GET', url: '/admin/summary', headers: bearer(token), remoteAddress })
      for (let i = 0; i < ADMIN_GUESSES; i++) t.equal((await admin(i % 2 === 0 ? one.server : two.server, `wrong-token-number-${i}`)).statusCode, 403)
      const refused = await admin(one.server, 'the-eleventh-wrong-token')
      t.equal(refused.statusCode, 429, 'ten wrong tokens, five on each instance: the eleventh is refused')
      const wait = Number(refused.headers['retry-after'])
      t.ok(wait >= 58 && wait <= 60, `Retry-After ${wait}`)
      t.equal((await admin(two.server, TOKEN)).statusCode, 429, 'the right token from that address, on the other instance')
      t.equal((await admin(one.server, TOKEN)).statusCode, 429)
      t.equal((await admin(two.server, TOKEN, '192.0.2.10')).statusCode, 200, 'from another address it works')
      t.equal(warningsIn(one.lines).length + warningsIn(two.lines).length, 1, 'one warning, from the instance that counted the tenth')
      // The window ends with its key (the count lives in Redis, with the window's TTL).
      const store = new RedisStore({ url: redis.url, prefix: redisKeyPrefix, idleMs: 600_000, maxSessions: 10 })
      t.teardown(() => store.close())
      await store.connected()
      t.equal(Number(await store.client.get('guess:rate:admin:192.0.2.9')), ADMIN_GUESSES + 1)
      await store.client.del('guess:rate:admin:192.0.2.9')
      t.equal((await admin(two.server, TOKEN)).statusCode, 200, 'the window over: the right token works again')
    })

    t.test('while Redis cannot be reached, the right token still opens /metrics and wrong ones are limited in the process', async t => {
      const gone = await redisServer()
      t.teardown(() => gone.remove())
      await gone.stop()
      const store = new RedisStore({ url: gone.url, prefix: 'away:', idleMs: 600_000, maxSessions: 10, commandTimeoutMs: 200 })
      const { server } = await service(t, { store })
      const metrics = async (token: string) => (await server.inject({ method: 'GET', url: '/metrics', headers: bearer(token) })).statusCode
      t.equal(await metrics(TOKEN), 200)
      for (let i = 0; i < ADMIN_GUESSES; i++) t.equal(await metrics(`wrong-token-number-${i}`), 403)
      t.equal(await metrics('the-eleventh-wrong-token'), 429)
      t.equal(await metrics(TOKEN), 429)
    })
  })
}
