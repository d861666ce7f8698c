// Guessing the Basic credentials of POST /secret/token (issue 50, item 7): wrong ones are limited per
// session and per client, counted as the admin token's guesses are (plugins/admin.ts), with a 429 and
// Retry-After past the limit, the right credentials refused too while it lasts.
import Fastify, { type FastifyInstance } from 'fastify'
import { Agent, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { BASIC_GUESSES_PER_SESSION } from '../../plugins/auth.js'
import app, { type ApiChallengesOptions } from '../../src/app.js'
import { MemoryStore } from '../../src/domain/sessions/memory-store.js'
import { fakeTime } from '../clock.js'
import { basic } from '../helper.js'

const RIGHT = basic('admin', 'password')
const wrong = (i: number): string => basic('admin', `guess-${i}`)

/** The service on its own Fastify, with every line it logs (JSON) in `lines`. */
async function service (t: Test, options: ApiChallengesOptions = {}): Promise<{ server: FastifyInstance, lines: string[] }> {
  const lines: string[] = []
  const server = Fastify({ logger: { level: 'info', stream: { write: (line: string) => { lines.push(line) } } } })
  t.teardown(() => server.close())
  await server.register(app, options)
  await server.ready()
  return { server, lines }
}

/** POST /secret/token over `agent`: the status and the Retry-After. */
async function token (agent: Agent, port: number, headers: Record<string, string>): Promise<[number, string | undefined]> {
  return await new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/secret/token', method: 'POST', agent, headers }, res => {
      res.resume()
      res.on('end', () => resolve([res.statusCode as number, res.headers['retry-after']]))
    }).on('error', reject).end()
  })
}

t.test('the attack: 600 wrong credentials from one address without a session are 60 × 401 then 429, logged once; another address is not held', async t => {
  const { server, lines } = await service(t)
  await server.listen({ port: 0, host: '127.0.0.1' })
  const port = (server.server.address() as AddressInfo).port
  const attacker = new Agent({ keepAlive: true, maxSockets: 8, localAddress: '127.0.0.2' })
  t.teardown(() => attacker.destroy())
  const answers = await Promise.all(Array.from({ length: 600 }, async (_, i) => await token(attacker, port, { authorization: wrong(i) })))
  t.equal(answers.filter(([status]) => status === 401).length, BASIC_GUESSES_PER_SESSION, 'requests without a session share one session\'s allowance')
  const refused = answers.filter(([status]) => status === 429)
  t.equal(refused.length, 600 - BASIC_GUESSES_PER_SESSION, 'the rest refused')
  t.ok(refused.every(([, wait]) => Number(wait) >= 1 && Number(wait) <= 60), 'each with Retry-After within the minute')
  t.equal((await token(attacker, port, { authorization: RIGHT }))[0], 429, 'the right credentials without a session from that address are refused too')
  const learner = new Agent({ keepAlive: true, localAddress: '127.0.0.3' })
  t.teardown(() => learner.destroy())
  t.equal((await token(learner, port, { authorization: wrong(0) }))[0], 401, 'another address is counted apart')
  const warned = lines.map(line => JSON.parse(line) as { level: number, msg: string }).filter(line => line.level === 40).map(line => line.msg)
  t.equal(warned.length, 1, 'one warning for the burst')
  t.match(warned[0], /^60 wrong Basic credentials without a session from 127\.0\.0\.2 within a minute: its POST \/secret\/token requests are refused \(429\) for \d{1,2} s$/)
  t.notOk(lines.some(line => line.includes('guess-') || line.includes(RIGHT.slice(6))), 'no credentials in the log')
})

t.test('a class behind one address: one learner\'s 330 wrong logins hold only their session; the classmates\' get through (issue 58)', async t => {
  // CLASS=1's limits: 60 a session, 2,400 an address. Two clients on one address, over HTTP.
  const { server, lines } = await service(t, { basicGuessLimit: 2400, creationRateLimit: 0 })
  await server.listen({ port: 0, host: '127.0.0.1' })
  const port = (server.server.address() as AddressInfo).port
  const room = (): Agent => new Agent({ keepAlive: true, maxSockets: 8, localAddress: '127.0.0.4' })
  const [hammering, classmate] = [room(), room()]
  t.teardown(() => { hammering.destroy(); classmate.destroy() })
  const made = async (agent: Agent): Promise<string> => await new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/challenger', method: 'POST', agent }, res => { res.resume(); resolve(res.headers['x-challenger'] as string) }).on('error', reject).end()
  })
  const loud = await made(hammering)
  const answers = await Promise.all(Array.from({ length: 330 }, async (_, i) => await token(hammering, port, { 'x-challenger': loud, authorization: wrong(i) })))
  t.equal(answers.filter(([status]) => status === 401).length, BASIC_GUESSES_PER_SESSION, 'the session\'s own allowance')
  t.equal(answers.filter(([status]) => status === 429).length, 330 - BASIC_GUESSES_PER_SESSION, 'then its session is held')
  for (let i = 0; i < 40; i++) {
    const mine = await made(classmate)
    t.equal((await token(classmate, port, { 'x-challenger': mine, authorization: RIGHT }))[0], 201, `classmate ${i + 1} on the same address gets a token`)
  }
  const warned = lines.filter(line => line.includes('wrong Basic credentials'))
  t.same(warned, [], 'no address was held, so nothing to warn about')
  // 40 sessions' worth of wrong guesses do reach the address's ceiling.
  const sessions = await Promise.all(Array.from({ length: 40 }, async () => await made(hammering)))
  for (const guid of sessions) {
    await Promise.all(Array.from({ length: BASIC_GUESSES_PER_SESSION }, async (_, i) => await token(hammering, port, { 'x-challenger': guid, authorization: wrong(i) })))
  }
  const late = await made(classmate)
  t.equal((await token(classmate, port, { 'x-challenger': late, authorization: RIGHT }))[0], 429, 'past 2,400 in a minute the address is held')
})

t.test('one session: 60 wrong credentials, then 429 for it (the right ones too) until its minute is over; another session is not held', async t => {
  const time = fakeTime()
  const { server } = await service(t, { store: new MemoryStore({ now: time.now, every: time.every }) })
  const from = { remoteAddress: '192.0.2.9' }
  const guid = async (): Promise<string> => (await server.inject({ method: 'POST', url: '/challenger', ...from })).headers['x-challenger'] as string
  const mine = await guid()
  const ask = async (session: string, authorization: string) => await server.inject({ method: 'POST', url: '/secret/token', headers: { 'x-challenger': session, authorization }, ...from })
  for (let i = 0; i < BASIC_GUESSES_PER_SESSION; i++) {
    t.equal((await ask(mine, wrong(i))).statusCode, 401)
    time.advance(500)
  }
  const held = await ask(mine, RIGHT)
  t.equal(held.statusCode, 429, 'the right credentials, after sixty wrong ones')
  t.equal(held.headers['retry-after'], '30')
  t.same(held.json(), { errorMessages: ['Too many wrong Basic credentials for this session: try again in 30 s'] })
  t.equal((await ask(mine, wrong(99))).statusCode, 429)
  t.equal((await ask(await guid(), RIGHT)).statusCode, 201, 'another session from the same address gets its token')
  time.advance(30_000)
  t.equal((await ask(mine, RIGHT)).statusCode, 201, 'a minute after the first wrong one')
  t.equal((await ask(mine, 'Bearer not-basic')).statusCode, 401, 'another scheme is no guess')
  const journal = (await server.inject({ method: 'GET', url: `/challenger/${mine}/requests`, ...from })).json() as { requests: Array<{ status: number }> }
  t.ok(journal.requests.some(entry => entry.status === 429), 'the refusal is in the session\'s journal')
})

t.test('the client\'s limit is BASIC_GUESS_LIMIT; 0 turns both off; none and other schemes never count', async t => {
  const { server } = await service(t, { basicGuessLimit: 3 })
  const ask = async (authorization: string | undefined, remoteAddress = '192.0.2.10') =>
    (await server.inject({ method: 'POST', url: '/secret/token', headers: authorization === undefined ? {} : { authorization }, remoteAddress })).statusCode
  for (let i = 0; i < 20; i++) {
    t.equal(await ask(undefined), 401)
    t.equal(await ask('Bearer x'), 401)
  }
  for (let i = 0; i < 3; i++) t.equal(await ask(wrong(i)), 401)
  t.equal(await ask(wrong(3)), 429)
  t.equal(await ask(wrong(4), '2001:db8:0:1::1'), 401, 'another client is counted apart')
  const off = await service(t, { basicGuessLimit: 0 })
  const guid = (await off.server.inject({ method: 'POST', url: '/challenger' })).headers['x-challenger'] as string
  for (let i = 0; i < 30; i++) t.equal((await off.server.inject({ method: 'POST', url: '/secret/token', headers: { 'x-challenger': guid, authorization: wrong(i) } })).statusCode, 401)
  t.equal((await off.server.inject({ method: 'POST', url: '/secret/token', headers: { 'x-challenger': guid, authorization: RIGHT } })).statusCode, 201)
})

t.test('a store that fails to count: the guesses are counted in this process', async t => {
  const store = new MemoryStore({})
  store.countCreation = async () => { throw new Error('away') }
  const { server } = await service(t, { store, basicGuessLimit: 2 })
  const ask = async (authorization: string) => (await server.inject({ method: 'POST', url: '/secret/token', headers: { authorization } })).statusCode
  t.same([await ask(wrong(1)), await ask(wrong(2)), await ask(wrong(3)), await ask(RIGHT)], [401, 401, 429, 429])
})
