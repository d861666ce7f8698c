// Hints that say what happened (issue 49), over HTTP at both bases: a token in Authorization without
// its scheme, a misspelt session header (X-Hint, and the journal of the session it meant), the note
// body's 400 in the journal's words, and hints whose paths keep the learner's base.
import Fastify from 'fastify'
import type { AddressInfo } from 'node:net'
import { connect } from 'node:net'
import t from 'tap'
import app from '../../src/app.js'
import { challenges } from '../../src/domain/challenges/catalogue.js'
import { MAX_HEADERS_LOOKED_AT, MAX_NAMES_REMEMBERED, misspeltChallenger } from '../../src/domain/http/misspelt-header.js'
import { BASES, baseName, build, errorMessages, newSession, passed, storeOf } from '../helper.js'

const json = { 'content-type': 'application/json' }

interface Entry { method: string, path: string, status: number, passed: number[], hint: string | null, token?: string }

const hintFor = (name: string): string => `The header ${name} is not X-CHALLENGER, so this request named no session: send your session id in X-CHALLENGER`
const MISSPELT = 'This request named your session in a header that is not X-CHALLENGER (misspelt?), so it counted for no session and passed nothing'

t.test('a header near X-CHALLENGER, by the rule for misspelt names; others are not', async t => {
  const near = ['X-CHALLENGE', 'X-CHALLENGERS', 'Challenger', 'X-Challanger', 'x_challenger', 'XChallenger', 'X-Chalenger', 'X-Cahllenger', 'Challenge', 'X-Challenger-Id', 'x-challenge']
  for (const name of near) t.same(misspeltChallenger(['Host', 'x', name, 'the-id']), { name, value: 'the-id' }, name)
  const far = ['Host', 'User-Agent', 'Accept', 'Accept-Encoding', 'Accept-Language', 'Connection', 'Content-Type', 'Content-Length',
    'Cache-Control', 'Authorization', 'X-Auth-Token', 'X-Request-Id', 'X-Api-Key', 'X-Csrf-Token', 'Origin', 'Referer', 'Cookie',
    'Sec-Fetch-Site', 'Sec-Fetch-Mode', 'Sec-Fetch-Dest', 'Sec-Ch-Ua', 'Sec-Ch-Ua-Mobile', 'Sec-Ch-Ua-Platform', 'Pragma', 'If-None-Match',
    'X-Forwarded-For', 'X-Forwarded-Proto', 'X-Real-Ip', 'X-Challenges-Page', 'X-HTTP-Method-Override', 'Upgrade-Insecure-Requests',
    'Priority', 'Te', 'Dnt', 'X-Correlation-Id', 'Traceparent', 'X-CHALLENGER', 'x-challenger', 'Challenges-Page', 'X-Channel']
  t.equal(misspeltChallenger(far.flatMap(name => [name, 'v'])), null, 'none of the usual headers, nor X-CHALLENGER itself')
  // Only the first MAX_HEADERS_LOOKED_AT names are looked at.
  const filler = Array.from({ length: MAX_HEADERS_LOOKED_AT - 1 }, (_, i) => [`X-Filler-${i}`, 'v']).flat()
  t.same(misspeltChallenger([...filler, 'X-Challenge', 'id']), { name: 'X-Challenge', value: 'id' }, 'the last one looked at')
  t.equal(misspeltChallenger([...filler, 'X-Other', 'v', 'X-Challenge', 'id']), null, 'one past it')
  // Names are remembered once judged, up to a bound: past it, they are still judged, the same way.
  for (let i = 0; i < MAX_NAMES_REMEMBERED; i++) misspeltChallenger([`X-Made-Up-${i}`, 'v'])
  t.same([misspeltChallenger(['X-Challengr', 'id']), misspeltChallenger(['X-Made-Up-X', 'v'])], [{ name: 'X-Challengr', value: 'id' }, null], 'past the bound')
  t.same(misspeltChallenger(['X-Challenge', 'again']), { name: 'X-Challenge', value: 'again' }, 'a name remembered')
})

for (const base of BASES) {
  t.test(baseName(base), async t => {
    t.test('a token in Authorization without Bearer: the 401 and the journal say so', async t => {
      const service = await build(t)
      const me = await newSession(service, base)
      const send = async (method: 'GET' | 'POST', authorization: string) => await service.inject({
        method,
        url: `${base}/secret/note`,
        headers: { 'x-challenger': me.guid, authorization, ...json },
        payload: method === 'POST' ? '{"note":"hi"}' : undefined
      })
      const journal = async (): Promise<Entry[]> => (await service.inject({ method: 'GET', url: `${base}/challenger/${me.guid}/requests` })).json().requests
      const bare = 'Authorization has a value but no scheme: send your token as Authorization: Bearer <token>, or in the X-AUTH-TOKEN header'

      for (const method of ['GET', 'POST'] as const) {
        const [noToken, bearer] = method === 'GET' ? [32, 37] : [35, 38]
        const first = await send(method, me.token)
        t.equal(first.statusCode, 401, `${method}: no token, still 401`)
        t.same(errorMessages(first), [bare])
        t.same((await journal())[0]?.passed, [noToken], 'the first time, it is the no-token challenge')
        const again = await send(method, me.token)
        t.same(errorMessages(again), [bare])
        t.match((await journal())[0], {
          method,
          status: 401,
          token: 'missing',
          passed: [],
          hint: `Challenge ${bearer} needs Authorization: Bearer <token>; this request's Authorization had no scheme (no "Bearer " before the token)`
        }, `${method} again: the Bearer challenge, not the other method's`)
        t.same(errorMessages(await send(method, 'deadbeef')), [bare], 'any one word without a scheme')
        t.equal((await journal())[0]?.hint, `Challenge ${bearer} needs Authorization: Bearer <token>; this request's Authorization had no scheme (no "Bearer " before the token)`)
        // With a scheme that is not Bearer, or Bearer alone: the usual words, and the usual hint.
        for (const other of [`Token ${me.token}`, 'Bearer', 'Basic']) {
          const res = await send(method, other)
          t.equal(res.statusCode, 401, other)
          t.same(errorMessages(res), ['Send the token from POST /secret/token in the X-AUTH-TOKEN header'], other)
        }
        t.equal((await journal())[0]?.hint, method === 'GET'
          ? `Challenge 35 needs POST ${base}/secret/note; this was GET`
          : null, 'Basic on the note is no token: as before (POST has no other-method hint left, 32 passed)')
        const right = await send(method, `Bearer ${me.token}`)
        t.equal(right.statusCode, 200)
        t.ok((await passed(service, me.guid)).includes(bearer))
      }
      t.notOk(JSON.stringify(await journal()).includes(me.token), 'the token is never in the journal')
    })

    t.test('a misspelt X-CHALLENGER: X-Hint on the answer, and an entry in the journal of the session it names', async t => {
      const service = await build(t, { creationRateLimit: 0 })
      const me = await newSession(service, base)
      const journal = async (): Promise<Entry[]> => (await service.inject({ method: 'GET', url: `${base}/challenger/${me.guid}/requests` })).json().requests
      const before = await passed(service, me.guid)

      const heartbeat = await service.inject({ method: 'GET', url: `${base}/heartbeat`, headers: { 'X-CHALLENGE': me.guid } })
      t.equal(heartbeat.statusCode, 204, 'the heartbeat answers as ever')
      t.equal(heartbeat.headers['x-hint'], hintFor('x-challenge'), 'the header named (inject sends names in lowercase; a socket keeps their case)')
      t.equal(heartbeat.headers['x-challenger'], undefined, 'nothing to echo')
      t.match((await journal())[0], { method: 'GET', path: `${base}/heartbeat`, status: 204, passed: [], hint: MISSPELT })

      for (const name of ['X-CHALLENGERS', 'Challenger', 'X-Challanger', 'x_challenger']) {
        const res = await service.inject({ method: 'GET', url: `${base}/challenges`, headers: { [name]: me.guid.toUpperCase() } })
        t.equal(res.statusCode, 200, name)
        t.equal(res.headers['x-hint'], hintFor(name.toLowerCase()), `${name}: inject sends names in lowercase`)
        t.ok(res.json().challenges.every((c: { status: boolean }) => !c.status), 'no session, no progress shown')
        t.match((await journal())[0], { path: `${base}/challenges`, status: 200, passed: [], hint: MISSPELT }, name)
      }
      t.same(await passed(service, me.guid), before, 'nothing passed: not 28, not 02')

      // The note: 401 for no session, with the hint; a 404 with the hint rather than "did you mean".
      const note = await service.inject({ method: 'GET', url: `${base}/secret/note`, headers: { 'X-Challenge': me.guid, 'x-auth-token': me.token } })
      t.equal(note.statusCode, 401)
      t.equal(note.headers['x-hint'], hintFor('x-challenge'))
      t.match(errorMessages(note), [/X-CHALLENGER header must name a session/])
      t.match((await journal())[0], { path: `${base}/secret/note`, status: 401, passed: [], hint: MISSPELT })
      t.notOk('token' in ((await journal())[0] as Entry), 'no token verdict without a session')
      const typo = await service.inject({ method: 'GET', url: `${base}/heartbeats`, headers: { 'X-Challenge': me.guid } })
      t.equal(typo.statusCode, 404)
      t.equal(typo.headers['x-hint'], hintFor('x-challenge'))
      t.match((await journal())[0], { path: `${base}/heartbeats`, status: 404, hint: MISSPELT })

      // POST /challenger without X-CHALLENGER makes a session: the new one records it, with the hint header.
      const made = await service.inject({ method: 'POST', url: `${base}/challenger`, headers: { 'X-Challenge': me.guid } })
      t.equal(made.statusCode, 201)
      t.equal(made.headers['x-hint'], hintFor('x-challenge'))
      const count = (await journal()).length
      t.not(made.headers['x-challenger'], me.guid)

      // An unknown or over-long id, or an empty one: the hint header, and no journal anywhere.
      for (const id of ['6a1f8e2c-4b3d-4e5f-9a7b-0c1d2e3f4a5b', me.guid + 'x'.repeat(100), '']) {
        const res = await service.inject({ method: 'GET', url: `${base}/heartbeat`, headers: { 'x-challenge': id } })
        t.equal(res.headers['x-hint'], hintFor('x-challenge'))
      }
      t.equal((await journal()).length, count, 'no entry for them')

      // With X-CHALLENGER, a near name is nobody's business: no hint, recorded as usual.
      const both = await service.inject({ method: 'GET', url: `${base}/heartbeat`, headers: { 'x-challenger': me.guid, 'x-challenge': 'other' } })
      t.equal(both.headers['x-hint'], undefined)
      t.match((await journal())[0], { path: `${base}/heartbeat`, passed: [28], hint: null })
      const plain = await service.inject({ method: 'GET', url: `${base}/heartbeat` })
      t.equal(plain.headers['x-hint'], undefined, 'no header at all: no hint')
      // CORS: a page may read X-Hint.
      t.equal(heartbeat.headers['access-control-expose-headers'], '*')
    })

    t.test('the note body\'s 400 says what the body was, in the journal\'s words', async t => {
      const service = await build(t)
      const me = await newSession(service, base)
      const res = await service.inject({ method: 'POST', url: `${base}/secret/note`, headers: { 'x-challenger': me.guid, 'x-auth-token': me.token, ...json }, payload: '{"notes":"hi"}' })
      t.equal(res.statusCode, 400)
      t.same(errorMessages(res), ['Send a JSON object with a string "note", such as {"note": "hi"}; this body has no "note" (it has "notes")'])
      const [entry] = (await service.inject({ method: 'GET', url: `${base}/challenger/${me.guid}/requests` })).json().requests as Entry[]
      t.equal(entry?.hint, 'Challenge 34 needs a JSON body such as {"note": "hi"}; this one was not a JSON object with a string "note"')
      const xml = await service.inject({ method: 'POST', url: `${base}/secret/note`, headers: { 'x-challenger': me.guid, 'x-auth-token': me.token, 'content-type': 'application/xml', accept: 'application/xml' }, payload: '<secretnote><notes>hi</notes></secretnote>' })
      t.equal(xml.statusCode, 400)
      t.equal(xml.body, '<?xml version="1.0" encoding="UTF-8"?><errorMessages><errorMessage>Send &lt;secretnote&gt;&lt;note&gt;hi&lt;/note&gt;&lt;/secretnote&gt;, the note as text; this body has no &lt;note&gt; inside a &lt;secretnote&gt;</errorMessage></errorMessages>')
      const [xmlEntry] = (await service.inject({ method: 'GET', url: `${base}/challenger/${me.guid}/requests` })).json().requests as Entry[]
      t.equal(xmlEntry?.hint, 'Challenge 34 needs a note such as {"note": "hi"}; this XML body was not <secretnote><note>hi</note></secretnote>, the note as text')
      // Another route's 400 keeps its words.
      const hints = await service.inject({ method: 'GET', url: `${base}/challenges?hints=yes` })
      t.equal(hints.statusCode, 400)
      t.match(errorMessages(hints), [/^Invalid request: querystring\/hints/])
    })

    t.test('?hints=true: each hint\'s request line is under the base it was asked at', async t => {
      const service = await build(t)
      const rows = (await service.inject({ method: 'GET', url: `${base}/challenges?hints=true` })).json().challenges as Array<{ id: number, hint: string }>
      t.equal(rows.length, challenges.length)
      for (const [at, c] of challenges.entries()) {
        const [method, path] = c.hint.split(/[ \n]/, 2) as [string, string]
        t.equal(rows[at]?.hint, c.hint.replace(`${method} ${path}`, `${method} ${base}${path}`), `challenge ${c.id}`)
      }
      t.equal(rows.find(row => row.id === 2)?.hint, `GET ${base}/challenges\nX-CHALLENGER: <your session id>`)
      const xml = (await service.inject({ method: 'GET', url: `${base}/challenges?hints=true`, headers: { accept: 'application/xml' } })).body
      t.ok(xml.includes(`<hint>POST ${base}/secret/note\nX-CHALLENGER: &lt;your session id&gt;\nX-AUTH-TOKEN: &lt;your token&gt;`), 'XML too')
    })

    t.test('the journal\'s sentences that name a path name it under the request\'s base', async t => {
      const service = await build(t, { creationRateLimit: 0 })
      // A session that has passed nothing yet, challenge 01 included.
      const me = await storeOf(service).create()
      const headers = { 'x-challenger': me.guid }
      const newest = async (): Promise<Entry | undefined> => (await service.inject({ method: 'GET', url: `/challenger/${me.guid}/requests` })).json().requests[0]
      const cases: Array<[string, string, Record<string, string>, string]> = [
        ['GET', '/challenger', {}, `Challenge 1 needs POST ${base}/challenger; GET is not allowed there`],
        ['POST', '/challenger', {}, `Challenge 1 needs POST ${base}/challenger without an X-CHALLENGER header; this one named a session, so none was created`],
        ['PUT', '/heartbeat', {}, `Challenge 25 needs DELETE ${base}/heartbeat; PUT is refused too but passes nothing`],
        ['DELETE', '/challenges', {}, `Challenge 2 needs GET ${base}/challenges; DELETE is not allowed there`],
        ['GET', '/secret/token', {}, `Challenge 29 needs POST ${base}/secret/token; GET is not allowed there`]
      ]
      for (const [method, path, extra, sentence] of cases) {
        await service.inject({ method: method as 'GET', url: `${base}${path}`, headers: { ...headers, ...extra } })
        t.equal((await newest())?.hint, sentence, `${method} ${base}${path}`)
      }
      // 32 passed (no token), then GET again: 35 needs POST, named under the base.
      await service.inject({ method: 'GET', url: `${base}/secret/note`, headers })
      await service.inject({ method: 'GET', url: `${base}/secret/note`, headers })
      t.equal((await newest())?.hint, `Challenge 35 needs POST ${base}/secret/note; this was GET`)
      // The same request at the other base says the other base.
      const other = base === '' ? '/api' : ''
      await service.inject({ method: 'GET', url: `${other}/secret/note`, headers })
      t.equal((await newest())?.hint, `Challenge 35 needs POST ${other}/secret/note; this was GET`)
      // A sentence without a path is the same at both.
      await service.inject({ method: 'HEAD', url: `${base}/heartbeat`, headers })
      t.equal((await newest())?.hint, 'HEAD passes nothing: challenge 28 needs GET')
    })
  })
}

t.test('single-player mode: X-CHALLENGER is not needed, so a near name gets no hint', async t => {
  const service = await build(t, { mode: 'single' })
  const res = await service.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenge': 'anything' } })
  t.equal(res.statusCode, 204)
  t.equal(res.headers['x-hint'], undefined)
  const [entry] = (await service.inject({ method: 'GET', url: '/challenger/00000000-0000-4000-8000-000000000001/requests' })).json().requests as Entry[]
  t.match(entry, { path: '/heartbeat', passed: [28], hint: null }, 'the one session passed 28')
})

t.test('with the journal off, the hint header still comes', async t => {
  const service = await build(t, { journalSize: 0 })
  const me = await newSession(service)
  const res = await service.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenge': me.guid } })
  t.equal(res.headers['x-hint'], hintFor('x-challenge'))
})

t.test('on the wire: X-Hint in Title-Case, with the header\'s name as the learner typed it', async t => {
  const service = await build(t)
  const me = await newSession(service)
  await service.listen({ port: 0, host: '127.0.0.1' })
  const port = (service.server.address() as AddressInfo).port
  const head = await new Promise<string>(resolve => {
    let text = ''
    const socket = connect(port, '127.0.0.1', () => socket.write(`GET /heartbeat HTTP/1.1\r\nHost: x\r\nX-CHALLENGE: ${me.guid}\r\nConnection: close\r\n\r\n`))
    socket.on('data', chunk => { text += String(chunk) })
    socket.on('end', () => { resolve(text) })
  })
  t.match(head, /^HTTP\/1\.1 204 /)
  t.ok(head.includes(`\r\nX-Hint: ${hintFor('X-CHALLENGE')}\r\n`), head)
})

t.test('under a host\'s prefix, ?hints=true names the prefix and the base', async t => {
  const host = Fastify()
  await host.register(app, { prefix: '/practice' })
  t.teardown(() => host.close())
  for (const base of ['/practice', '/practice/api']) {
    const rows = (await host.inject({ method: 'GET', url: `${base}/challenges?hints=true` })).json().challenges as Array<{ id: number, hint: string }>
    t.equal(rows.find(row => row.id === 28)?.hint, `GET ${base}/heartbeat\nX-CHALLENGER: <your session id>`)
  }
})
