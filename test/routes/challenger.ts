import t from 'tap'
import { challenges } from '../../src/domain/challenges/catalogue.js'
import { MemoryStore } from '../../src/domain/sessions/memory-store.js'
import { BASES, baseName, build, errorMessages, passed } from '../helper.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

// Every test in this loop runs at both bases of the API, with the same expectations.
for (const base of BASES) {
  t.test(baseName(base), async t => {
    t.test('POST /challenger without X-CHALLENGER creates a session: 201 and a new UUID', async t => {
      const app = await build(t)
      const res = await app.inject({ method: 'POST', url: `${base}/challenger` })
      t.equal(res.statusCode, 201)
      t.equal(res.body, '')
      t.match(res.headers['x-challenger'], UUID)
      t.same(await passed(app, res.headers['x-challenger'] as string), [1])
      const second = await app.inject({ method: 'POST', url: `${base}/challenger`, headers: { 'x-challenger': '' } })
      t.equal(second.statusCode, 201, 'an empty header counts as none')
      t.not(second.headers['x-challenger'], res.headers['x-challenger'])
    })

    t.test('POST /challenger with a known session is 200; with an unknown one 404', async t => {
      const app = await build(t)
      const guid = (await app.inject({ method: 'POST', url: `${base}/challenger` })).headers['x-challenger'] as string
      const known = await app.inject({ method: 'POST', url: `${base}/challenger`, headers: { 'x-challenger': guid } })
      t.equal(known.statusCode, 200)
      t.equal(known.headers['x-challenger'], guid)
      const unknown = await app.inject({ method: 'POST', url: `${base}/challenger`, headers: { 'x-challenger': 'no-such-session' } })
      t.equal(unknown.statusCode, 404)
      t.equal(unknown.headers['x-challenger'], 'no-such-session')
      t.same(errorMessages(unknown), ['No session "no-such-session": send POST /challenger without X-CHALLENGER to create one'])
    })

    t.test('GET /challenges lists the catalogue sorted by id with the caller\'s statuses', async t => {
      const app = await build(t)
      const anonymous = await app.inject({ method: 'GET', url: `${base}/challenges` })
      t.equal(anonymous.statusCode, 200)
      t.equal(anonymous.headers['content-type'], 'application/json; charset=utf-8')
      const list = anonymous.json().challenges as Array<{ id: number, name: string, description: string, status: boolean }>
      t.same(list.map(c => c.id), challenges.map(c => c.id).sort((a, b) => a - b))
      t.same(list.filter(c => c.status), [], 'all false without a session')
      t.same(list.find(c => c.id === 25), { id: 25, name: 'DELETE /heartbeat (405)', description: challenges[2]?.description, status: false })

      const unknown = await app.inject({ method: 'GET', url: `${base}/challenges`, headers: { 'x-challenger': 'nobody' } })
      t.equal(unknown.statusCode, 200)
      t.same(unknown.json().challenges.filter((c: { status: boolean }) => c.status), [], 'all false for an unknown session')

      const guid = (await app.inject({ method: 'POST', url: `${base}/challenger` })).headers['x-challenger'] as string
      await app.inject({ method: 'DELETE', url: `${base}/heartbeat`, headers: { 'x-challenger': guid } })
      const mine = await app.inject({ method: 'GET', url: `${base}/challenges`, headers: { 'x-challenger': guid } })
      t.same(mine.json().challenges.filter((c: { status: boolean }) => c.status).map((c: { id: number }) => c.id), [1, 2, 25])
      t.same(await passed(app, guid), [1, 2, 25])
    })

    t.test('HEAD /challenges does not pass challenge 02', async t => {
      const app = await build(t)
      const guid = (await app.inject({ method: 'POST', url: `${base}/challenger` })).headers['x-challenger'] as string
      const head = await app.inject({ method: 'HEAD', url: `${base}/challenges`, headers: { 'x-challenger': guid } })
      t.equal(head.statusCode, 200)
      t.same(await passed(app, guid), [1])
    })

    t.test('OPTIONS and refused methods on /challenger and /challenges', async t => {
      const app = await build(t)
      const cases: Array<[string, string, string[]]> = [
        [`${base}/challenger`, 'POST, OPTIONS', ['GET', 'PUT', 'DELETE', 'PATCH', 'TRACE', 'COPY']],
        [`${base}/challenges`, 'GET, HEAD, OPTIONS', ['POST', 'PUT', 'DELETE', 'PATCH', 'TRACE', 'LOCK']]
      ]
      for (const [url, allow, refused] of cases) {
        const options = await app.inject({ method: 'OPTIONS', url, headers: { 'content-type': 'application/json' }, payload: '{' })
        t.equal(options.statusCode, 204, `OPTIONS ${url}`)
        t.equal(options.headers.allow, allow)
        t.equal(options.headers['access-control-allow-methods'], allow)
        for (const method of refused) {
          const res = await app.inject({ method: method as 'GET', url, headers: { 'content-type': 'application/json', 'x-challenger': 'x' }, payload: '{' })
          t.equal(res.statusCode, 405, `${method} ${url}`)
          t.equal(res.headers.allow, allow)
          t.equal(res.headers['x-challenger'], 'x')
          t.same(errorMessages(res), [`${method} is not allowed on ${url}; allowed: ${allow}`])
        }
      }
    })

    t.test('unknown paths are 404 with the error body and the common headers', async t => {
      const app = await build(t)
      for (const [method, url] of [['GET', `${base}/nothing`], ['POST', `${base}/secret`], ['OPTIONS', `${base}/heartbeat/x/y/z`], ['DELETE', `${base}/gui`]]) {
        const res = await app.inject({ method: method as 'GET', url, headers: { 'x-challenger': 'abc' } })
        t.equal(res.statusCode, 404, `${method} ${url}`)
        t.same(errorMessages(res), [`No resource at ${method} ${url}`])
        t.equal(res.headers['x-challenger'], 'abc')
        t.equal(res.headers['access-control-allow-origin'], '*')
        t.equal(res.headers['access-control-allow-headers'], '*')
        t.equal(res.headers['access-control-expose-headers'], '*')
      }
    })

    t.test('a malformed URL is 400 with the error body and the common headers', async t => {
      const app = await build(t)
      const res = await app.inject({ method: 'GET', url: `${base}/secret/%zz`, headers: { 'x-challenger': 'abc' } })
      t.equal(res.statusCode, 400)
      t.same(errorMessages(res), [`'${base}/secret/%zz' is not a valid url component`])
      t.equal(res.headers['x-challenger'], 'abc')
      t.equal(res.headers['access-control-allow-origin'], '*')
      const bare = await app.inject({ method: 'GET', url: `${base}/%zz` })
      t.equal(bare.headers['x-challenger'], undefined)
    })

    t.test('a failing store is a 500 with the error body and no detail', async t => {
      class OnFire extends MemoryStore {
        override async create (): Promise<never> { throw new Error('disk on fire at /var/secret') }
        override async get (): Promise<never> { throw new Error('disk on fire at /var/secret') }
      }
      const app = await build(t, { store: new OnFire() })
      for (const headers of [{}, { 'x-challenger': 'x' }]) {
        const res = await app.inject({ method: 'POST', url: `${base}/challenger`, headers })
        t.equal(res.statusCode, 500)
        t.same(errorMessages(res), ['Internal Server Error'])
        t.notMatch(res.body, /disk|secret/)
      }
    })

    t.test('an error that carries a 4xx status keeps its status and message', async t => {
      const busy = Object.assign(new Error('The session store is busy, try again'), { statusCode: 429 })
      class Busy extends MemoryStore {
        override async create (): Promise<never> { throw busy }
      }
      const app = await build(t, { store: new Busy() })
      const res = await app.inject({ method: 'POST', url: `${base}/challenger` })
      t.equal(res.statusCode, 429)
      t.same(errorMessages(res), ['The session store is busy, try again'])
    })

    t.test('routes that take no body accept and ignore whatever body a client sends', async t => {
      const app = await build(t)
      for (const [type, payload] of [['application/json', ''], ['application/json', '{bad'], ['application/xml', '<x/>'], ['application/x-www-form-urlencoded', 'a=b'], ['text/plain', 'hi']]) {
        const res = await app.inject({ method: 'POST', url: `${base}/challenger`, headers: { 'content-type': type as string }, payload })
        t.equal(res.statusCode, 201, `${type} ${payload}`)
        t.match(res.headers['x-challenger'], UUID)
      }
      const big = await app.inject({ method: 'POST', url: `${base}/challenger`, headers: { 'content-type': 'text/plain' }, payload: 'x'.repeat(16 * 1024 + 1) })
      t.equal(big.statusCode, 413, 'but not beyond the body limit')
      t.same(errorMessages(big), ['The request body is larger than the limit of 16384 bytes'])
    })

    t.test('GET /challenger/{guid} looks the session up once, even when X-CHALLENGER names it too', async t => {
      const store = new MemoryStore()
      const asked: string[] = []
      const get = store.get.bind(store)
      store.get = (id: string) => { asked.push(id); return get(id) }
      const app = await build(t, { store })
      const guid = (await app.inject({ method: 'POST', url: `${base}/challenger` })).headers['x-challenger'] as string
      const other = (await app.inject({ method: 'POST', url: `${base}/challenger` })).headers['x-challenger'] as string
      asked.length = 0
      const same = await app.inject({ method: 'GET', url: `${base}/challenger/${guid.toUpperCase()}`, headers: { 'x-challenger': guid } })
      t.equal(same.statusCode, 200)
      t.same(asked, [guid], 'one lookup for the header and the URL')
      asked.length = 0
      const two = await app.inject({ method: 'GET', url: `${base}/challenger/${other}`, headers: { 'x-challenger': guid } })
      t.equal(two.json().xChallenger, other, 'the URL decides whose session it is')
      t.same(asked, [guid, other], 'two sessions named: two lookups')
    })
  })
}
