// GET /challenges as suites written for the reference match it (issue 35): each item has exactly the
// reference's keys, in its order, `id` a number; the hints only when asked for (?hints=true).
import t from 'tap'
import { challenges } from '../../src/domain/challenges/catalogue.js'
import { build, newSession, passed } from '../helper.js'

const KEYS = ['id', 'name', 'description', 'status']

t.test('the default answer: exactly id, name, description, status, in that order, with and without a session', async t => {
  const app = await build(t, { creationRateLimit: 0 })
  const { guid } = await newSession(app)
  for (const headers of [{}, { 'x-challenger': guid }]) {
    for (const url of ['/challenges', '/challenges?hints=false', '/challenges?limit=5&hint=true']) {
      const res = await app.inject({ method: 'GET', url, headers })
      t.equal(res.statusCode, 200, url)
      const items = res.json().challenges as Array<Record<string, unknown>>
      t.equal(items.length, challenges.length)
      for (const item of items) t.same(Object.keys(item), KEYS, `${url}: challenge ${String(item.id)}`)
      t.same(items.map(item => item.id), challenges.map(c => c.id), 'ids as JSON numbers, in order')
      t.ok(items.every(item => typeof item.id === 'number' && typeof item.status === 'boolean'))
      t.notOk(res.body.includes('"hint"'))
    }
  }
  // With the session: its progress (challenge 01, 30 and now 02).
  const mine = (await app.inject({ method: 'GET', url: '/challenges', headers: { 'x-challenger': guid } })).json().challenges as Array<{ id: number, status: boolean }>
  t.same(mine.filter(c => c.status).map(c => c.id), [1, 2, 30])
})

t.test('?hints=true adds hint after status, the catalogue\'s; it passes 02 like any GET', async t => {
  const app = await build(t, { creationRateLimit: 0 })
  const anonymous = await app.inject({ method: 'GET', url: '/challenges?hints=true' })
  t.equal(anonymous.statusCode, 200)
  const items = anonymous.json().challenges as Array<Record<string, unknown>>
  for (const item of items) t.same(Object.keys(item), [...KEYS, 'hint'])
  t.same(items.map(item => item.hint), challenges.map(c => c.hint))
  t.ok(items.every(item => item.status === false), 'no session: nothing passed')

  const { guid } = await newSession(app)
  const res = await app.inject({ method: 'GET', url: '/challenges?hints=true', headers: { 'x-challenger': guid } })
  t.equal(res.statusCode, 200)
  t.same((res.json().challenges as Array<Record<string, unknown>>).map(item => Object.keys(item)), challenges.map(() => [...KEYS, 'hint']))
  t.equal(res.headers.location, `/gui/challenges/${guid}`)
  t.same(await passed(app, guid), [1, 2, 30])
})

t.test('a hints value other than true or false is a 400 that says which; HEAD, OPTIONS and 405 as before', async t => {
  const app = await build(t, { creationRateLimit: 0 })
  const { guid } = await newSession(app)
  for (const url of ['/challenges?hints=yes', '/challenges?hints=', '/challenges?hints=TRUE', '/challenges?hints=true&hints=true']) {
    const res = await app.inject({ method: 'GET', url, headers: { 'x-challenger': guid } })
    t.equal(res.statusCode, 400, url)
    t.same(res.json(), { errorMessages: [url.endsWith('&hints=true') ? 'Invalid request: querystring/hints: Expected string' : 'Invalid request: querystring/hints: Expected string to match \'^(true|false)$\''] })
  }
  t.same(await passed(app, guid), [1, 30], 'a refused list passes nothing')

  const head = await app.inject({ method: 'HEAD', url: '/challenges?hints=true' })
  t.equal(head.statusCode, 200)
  t.equal(head.body, '')
  t.equal((await app.inject({ method: 'HEAD', url: '/challenges?hints=nope' })).statusCode, 400)
  const options = await app.inject({ method: 'OPTIONS', url: '/challenges?hints=true' })
  t.equal(options.statusCode, 204)
  t.equal(options.headers.allow, 'GET, HEAD, OPTIONS')
  const put = await app.inject({ method: 'PUT', url: '/challenges?hints=true' })
  t.equal(put.statusCode, 405)
  t.equal(put.headers.allow, 'GET, HEAD, OPTIONS')
})

t.test('XML: the same elements, <hint> only with ?hints=true, after <status>', async t => {
  const app = await build(t, { creationRateLimit: 0 })
  const { guid } = await newSession(app)
  const item = '<challenge><id>\\d+</id><name>[^<]+</name><description>[^<]+</description><status>(true|false)</status>'
  for (const headers of [{ accept: 'application/xml' }, { accept: 'application/xml', 'x-challenger': guid }]) {
    const plain = await app.inject({ method: 'GET', url: '/challenges', headers })
    t.equal(plain.statusCode, 200)
    t.match(plain.headers['content-type'], /^application\/xml/)
    t.match(plain.body, new RegExp(`^<\\?xml version="1.0" encoding="UTF-8"\\?><challenges>(${item}</challenge>){${challenges.length}}</challenges>$`))
    t.notOk(plain.body.includes('<hint>'))

    const hinted = await app.inject({ method: 'GET', url: '/challenges?hints=true', headers })
    t.match(hinted.body, new RegExp(`^<\\?xml version="1.0" encoding="UTF-8"\\?><challenges>(${item}<hint>[^<]+</hint></challenge>){${challenges.length}}</challenges>$`))
    t.ok(hinted.body.includes('<challenge><id>28</id>'))
    t.ok(hinted.body.includes('<hint>GET /heartbeat\nX-CHALLENGER: &lt;your session id&gt;</hint>'), 'escaped')
  }
})

t.test('the document names the parameter, and shows no hint in the default answer\'s schema example', async t => {
  const app = await build(t)
  const doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json()
  const get = doc.paths['/challenges'].get
  t.match(get.parameters, [{ in: 'query', name: 'hints', required: false, schema: { type: 'string', pattern: '^(true|false)$' }, description: /^`true` adds `hint`/ }])
  const json = get.responses['200'].content['application/json']
  t.same(Object.keys(json.example.challenges[0]), KEYS)
  t.same(Object.keys(json.schema.properties.challenges.items.properties), [...KEYS, 'hint'])
  t.same(json.schema.properties.challenges.items.required, KEYS)
  t.notOk(get.responses['200'].content['application/xml'].schema.example.includes('<hint>'))
})
