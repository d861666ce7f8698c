import t from 'tap'
import { METHODS } from 'node:http'
import { BASES, baseName, build, passed } from '../helper.js'

const HTML = 'text/html;charset=utf-8'
const ALLOW = 'GET, HEAD, OPTIONS, PATCH, TRACE'

// Every test in this loop runs at both bases of the API, with the same expectations.
for (const base of BASES) {
  t.test(baseName(base), async t => {
    t.test('GET /heartbeat is 204 with an empty body, with or without X-CHALLENGER', async t => {
      const app = await build(t)
      for (const headers of [{}, { 'x-challenger': 'not-a-session' }]) {
        const res = await app.inject({ method: 'GET', url: `${base}/heartbeat`, headers })
        t.equal(res.statusCode, 204)
        t.equal(res.body, '')
        t.equal(res.headers['x-challenger'], headers['x-challenger' as keyof typeof headers])
        t.equal(res.headers['access-control-allow-origin'], '*')
        t.equal(res.headers['access-control-allow-headers'], '*')
        t.equal(res.headers['access-control-expose-headers'], '*')
      }
    })

    t.test('each heartbeat method has its fixed status and passes its challenge', async t => {
      const app = await build(t)
      const cases: Array<[string, number, string | undefined, number | undefined]> = [
        ['GET', 204, undefined, 28],
        ['HEAD', 204, undefined, undefined],
        ['DELETE', 405, HTML, 25],
        ['PATCH', 500, HTML, 26],
        ['TRACE', 501, HTML, 27],
        ['POST', 405, HTML, undefined],
        ['PUT', 405, HTML, undefined]
      ]
      for (const [method, status, type, challenge] of cases) {
        const guid = (await app.inject({ method: 'POST', url: `${base}/challenger` })).headers['x-challenger'] as string
        const res = await app.inject({ method: method as 'GET', url: `${base}/heartbeat`, headers: { 'x-challenger': guid } })
        t.equal(res.statusCode, status, `${method} status`)
        t.equal(res.headers['content-type'], type, `${method} content type`)
        t.equal(res.headers['x-challenger'], guid, `${method} echoes X-CHALLENGER`)
        t.equal(res.body, '', `${method} body`)
        if (status === 405) t.equal(res.headers.allow, ALLOW, `${method} Allow`)
        t.same(await passed(app, guid), challenge === undefined ? [1] : [1, challenge], `${method} progress`)
      }
    })

    t.test('OPTIONS /heartbeat is 204 and lists exactly the verbs that are never 405', async t => {
      const app = await build(t)
      const res = await app.inject({ method: 'OPTIONS', url: `${base}/heartbeat` })
      t.equal(res.statusCode, 204)
      t.equal(res.headers.allow, ALLOW)
      t.equal(res.headers['access-control-allow-methods'], ALLOW)
      const listed = (res.headers.allow as string).split(', ')
      for (const method of METHODS.filter(m => m !== 'CONNECT')) {
        const answer = await app.inject({ method: method as 'GET', url: `${base}/heartbeat` })
        t.equal(answer.statusCode === 405, !listed.includes(method), `${method} is ${answer.statusCode}`)
      }
    })

    t.test('PATCH with a body, even a malformed one, is still 500', async t => {
      const app = await build(t)
      const res = await app.inject({
        method: 'PATCH',
        url: `${base}/heartbeat`,
        headers: { 'content-type': 'application/json' },
        payload: '{not json'
      })
      t.equal(res.statusCode, 500)
      t.equal(res.headers['content-type'], HTML)
    })

    t.test('a refused method is 405 whatever body or content type it carries', async t => {
      const app = await build(t)
      const post = await app.inject({ method: 'POST', url: `${base}/heartbeat`, headers: { 'content-type': 'application/json' }, payload: '{' })
      t.equal(post.statusCode, 405)
      const big = await app.inject({ method: 'PUT', url: `${base}/heartbeat`, headers: { 'content-type': 'text/plain' }, payload: 'x'.repeat(2 * 1024 * 1024) })
      t.equal(big.statusCode, 405)
      // QUERY without a Content-Type is a 400 in Fastify, but the route refuses it first.
      const query = await app.inject({ method: 'QUERY' as 'GET', url: `${base}/heartbeat`, payload: 'x' })
      t.equal(query.statusCode, 405)
    })

    t.test('POST with X-HTTP-Method-Override answers as that method and passes 40-42 only', async t => {
      const app = await build(t)
      const cases: Array<[string, number, number | undefined]> = [
        ['DELETE', 405, 40],
        ['patch', 500, 41],
        [' Trace ', 501, 42],
        ['GET', 405, undefined],
        ['PUT', 405, undefined]
      ]
      for (const [override, status, challenge] of cases) {
        const guid = (await app.inject({ method: 'POST', url: `${base}/challenger` })).headers['x-challenger'] as string
        const res = await app.inject({
          method: 'POST',
          url: `${base}/heartbeat`,
          headers: { 'x-challenger': guid, 'x-http-method-override': override }
        })
        t.equal(res.statusCode, status, `override ${override}`)
        t.equal(res.headers['content-type'], HTML)
        t.same(await passed(app, guid), challenge === undefined ? [1] : [1, challenge], `override ${override} progress`)
      }
    })

    t.test('the override applies to POST only', async t => {
      const app = await build(t)
      const guid = (await app.inject({ method: 'POST', url: `${base}/challenger` })).headers['x-challenger'] as string
      const res = await app.inject({ method: 'PUT', url: `${base}/heartbeat`, headers: { 'x-challenger': guid, 'x-http-method-override': 'TRACE' } })
      t.equal(res.statusCode, 405)
      t.same(await passed(app, guid), [1])
    })

    t.test('challenges are recorded only for the session that did them', async t => {
      const app = await build(t)
      const one = (await app.inject({ method: 'POST', url: `${base}/challenger` })).headers['x-challenger'] as string
      const two = (await app.inject({ method: 'POST', url: `${base}/challenger` })).headers['x-challenger'] as string
      await app.inject({ method: 'GET', url: `${base}/heartbeat`, headers: { 'x-challenger': one } })
      t.same(await passed(app, one), [1, 28])
      t.same(await passed(app, two), [1])
    })
  })
}
