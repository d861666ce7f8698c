import t from 'tap'
import { MemoryStore } from '../../src/domain/sessions/memory-store.js'
import { NAME_A_SESSION } from '../../src/domain/challenges/messages.js'
import type { JournalEntry } from '../../src/domain/journal/journal.js'
import type { SessionChange } from '../../src/domain/sessions/store.js'
import { BASES, baseName, basic, build, errorMessages, newSession, passed, storeOf } from '../helper.js'

const json = { 'content-type': 'application/json' }

// Every test in this loop runs at both bases of the API, with the same expectations.
for (const base of BASES) {
  t.test(baseName(base), async t => {
    t.test('POST /secret/token', async t => {
      const app = await build(t)
      const guid = (await app.inject({ method: 'POST', url: `${base}/challenger` })).headers['x-challenger'] as string

      t.test('with the right credentials and a session is 201 with the token and an empty body', async t => {
        const res = await app.inject({ method: 'POST', url: `${base}/secret/token`, headers: { 'x-challenger': guid, authorization: basic('admin', 'password') } })
        t.equal(res.statusCode, 201)
        t.equal(res.body, '')
        t.match(res.headers['x-auth-token'], /^[0-9a-f]{32}$/)
        t.equal(res.headers['x-challenger'], guid)
        const again = await app.inject({ method: 'POST', url: `${base}/secret/token`, headers: { 'x-challenger': guid, authorization: basic('admin', 'password') } })
        t.equal(again.headers['x-auth-token'], res.headers['x-auth-token'], 'the same token on every request')
        t.ok((await passed(app, guid)).includes(30))
      })

      t.test('wrong or missing credentials are 401 with WWW-Authenticate and no token', async t => {
        for (const authorization of [basic('admin', 'wrong'), basic('root', 'password'), basic('admin', 'password2'), 'Basic', 'Basic !!!', 'Basic ' + Buffer.from('nocolon').toString('base64'), 'Bearer x', undefined]) {
          const headers = authorization === undefined ? { 'x-challenger': guid } : { 'x-challenger': guid, authorization }
          const res = await app.inject({ method: 'POST', url: `${base}/secret/token`, headers })
          t.equal(res.statusCode, 401, String(authorization))
          t.equal(res.headers['www-authenticate'], 'Basic realm="User Visible Realm"')
          t.equal(res.headers['x-auth-token'], undefined)
          t.same(errorMessages(res), ['Send Basic credentials that the server accepts (by default admin:password) in the Authorization header'])
        }
      })

      t.test('credentials are checked before the session', async t => {
        const res = await app.inject({ method: 'POST', url: `${base}/secret/token`, headers: { authorization: basic('admin', 'nope') } })
        t.equal(res.statusCode, 401)
        t.equal(res.headers['www-authenticate'], 'Basic realm="User Visible Realm"')
      })

      t.test('a missing or unknown session is 401 without WWW-Authenticate', async t => {
        for (const headers of [{}, { 'x-challenger': 'unknown' }]) {
          const res = await app.inject({ method: 'POST', url: `${base}/secret/token`, headers: { ...headers, authorization: basic('admin', 'password') } })
          t.equal(res.statusCode, 401)
          t.equal(res.headers['www-authenticate'], undefined)
          t.equal(res.headers['x-auth-token'], undefined)
          t.match(errorMessages(res), [/X-CHALLENGER/])
        }
      })

      t.test('OPTIONS is 204 with Allow; other methods 405 with Allow and the error body', async t => {
        const options = await app.inject({ method: 'OPTIONS', url: `${base}/secret/token` })
        t.equal(options.statusCode, 204)
        t.equal(options.headers.allow, 'POST, OPTIONS')
        for (const method of ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'TRACE', 'PROPFIND']) {
          const res = await app.inject({ method: method as 'GET', url: `${base}/secret/token` })
          t.equal(res.statusCode, 405, method)
          t.equal(res.headers.allow, 'POST, OPTIONS')
          if (method !== 'HEAD') t.match(errorMessages(res), [/not allowed/])
        }
      })
    })

    t.test('a body sent to /secret/token is ignored: credentials still come first', async t => {
      const app = await build(t)
      const guid = (await app.inject({ method: 'POST', url: `${base}/challenger` })).headers['x-challenger'] as string
      const refused = await app.inject({ method: 'POST', url: `${base}/secret/token`, headers: { 'x-challenger': guid, 'content-type': 'application/xml' }, payload: '<x/>' })
      t.equal(refused.statusCode, 401)
      t.equal(refused.headers['www-authenticate'], 'Basic realm="User Visible Realm"')
      const issued = await app.inject({ method: 'POST', url: `${base}/secret/token`, headers: { 'x-challenger': guid, 'content-type': 'application/json', authorization: basic('admin', 'password') } })
      t.equal(issued.statusCode, 201)
      t.match(issued.headers['x-auth-token'], /^[0-9a-f]{32}$/)
    })

    t.test('challenge 29 needs some credentials sent; 30 the token issued', async t => {
      const app = await build(t)
      const none = (await app.inject({ method: 'POST', url: `${base}/challenger` })).headers['x-challenger'] as string
      await app.inject({ method: 'POST', url: `${base}/secret/token`, headers: { 'x-challenger': none } })
      t.same(await passed(app, none), [1])
      await app.inject({ method: 'POST', url: `${base}/secret/token`, headers: { 'x-challenger': none, authorization: basic('admin', 'x') } })
      t.same(await passed(app, none), [1, 29])
    })

    t.test('tokens differ between sessions', async t => {
      const app = await build(t)
      const a = await newSession(app, base)
      const b = await newSession(app, base)
      t.not(a.token, b.token)
    })

    t.test('credentials and realm are configurable', async t => {
      const app = await build(t, { username: 'learner', password: 'p:ss wörd', realm: 'practice' })
      const guid = (await app.inject({ method: 'POST', url: `${base}/challenger` })).headers['x-challenger'] as string
      const old = await app.inject({ method: 'POST', url: `${base}/secret/token`, headers: { 'x-challenger': guid, authorization: basic('admin', 'password') } })
      t.equal(old.statusCode, 401)
      t.equal(old.headers['www-authenticate'], 'Basic realm="practice"')
      const res = await app.inject({ method: 'POST', url: `${base}/secret/token`, headers: { 'x-challenger': guid, authorization: basic('learner', 'p:ss wörd') } })
      t.equal(res.statusCode, 201)
    })

    t.test(`${base}/secret/note`, async t => {
      const app = await build(t)
      const me = await newSession(app, base)
      const other = await newSession(app, base)
      const mine = { 'x-challenger': me.guid, 'x-auth-token': me.token }

      t.test('GET before any write is 200 with an empty note', async t => {
        const res = await app.inject({ method: 'GET', url: `${base}/secret/note`, headers: mine })
        t.equal(res.statusCode, 200)
        t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
        t.same(res.json(), { note: '' })
      })

      t.test('POST with the token stores the note and answers it', async t => {
        const res = await app.inject({ method: 'POST', url: `${base}/secret/note`, headers: { ...mine, ...json }, payload: { note: 'my secret' } })
        t.equal(res.statusCode, 200)
        t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
        t.same(res.json(), { note: 'my secret' })
        const read = await app.inject({ method: 'GET', url: `${base}/secret/note`, headers: mine })
        t.same(read.json(), { note: 'my secret' })
      })

      t.test('the token also works as Authorization: Bearer; a Basic header is ignored', async t => {
        const bearer = { 'x-challenger': me.guid, authorization: `Bearer ${me.token}` }
        const res = await app.inject({ method: 'GET', url: `${base}/secret/note`, headers: bearer })
        t.equal(res.statusCode, 200)
        t.same(res.json(), { note: 'my secret' })
        const basicToo = await app.inject({ method: 'GET', url: `${base}/secret/note`, headers: { ...mine, authorization: basic('admin', 'password') } })
        t.equal(basicToo.statusCode, 200)
        const basicOnly = await app.inject({ method: 'GET', url: `${base}/secret/note`, headers: { 'x-challenger': me.guid, authorization: basic('admin', 'password') } })
        t.equal(basicOnly.statusCode, 401)
      })

      t.test('no token is 401; an empty X-AUTH-TOKEN counts as none', async t => {
        for (const headers of [{ 'x-challenger': me.guid }, { 'x-challenger': me.guid, 'x-auth-token': '' }]) {
          for (const method of ['GET', 'POST'] as const) {
            const res = await app.inject({ method, url: `${base}/secret/note`, headers: { ...headers, ...json }, payload: method === 'POST' ? { note: 'changed' } : undefined })
            t.equal(res.statusCode, 401, method)
            t.match(errorMessages(res), [/X-AUTH-TOKEN/])
          }
        }
        t.same((await app.inject({ method: 'GET', url: `${base}/secret/note`, headers: mine })).json(), { note: 'my secret' })
      })

      t.test('a wrong token, or another session\'s token, is 403 and changes nothing', async t => {
        for (const token of ['wrong', other.token, me.token.toUpperCase(), me.token + '0', me.token.slice(1)]) {
          for (const headers of [{ 'x-auth-token': token }, { authorization: `Bearer ${token}` }]) {
            const res = await app.inject({ method: 'POST', url: `${base}/secret/note`, headers: { 'x-challenger': me.guid, ...headers, ...json }, payload: { note: 'changed' } })
            t.equal(res.statusCode, 403, token)
            t.same(res.json(), { errorMessages: ['The token is not the one issued to this session'] })
          }
        }
        t.same((await app.inject({ method: 'GET', url: `${base}/secret/note`, headers: mine })).json(), { note: 'my secret' })
        t.same((await app.inject({ method: 'GET', url: `${base}/secret/note`, headers: { 'x-challenger': other.guid, 'x-auth-token': other.token } })).json(), { note: '' })
      })

      t.test('a missing or unknown session is 401, whatever the token', async t => {
        for (const challenger of [{}, { 'x-challenger': '' }, { 'x-challenger': 'nobody' }]) {
          const res = await app.inject({ method: 'GET', url: `${base}/secret/note`, headers: { ...challenger, 'x-auth-token': me.token } })
          t.equal(res.statusCode, 401)
          t.match(errorMessages(res), [/X-CHALLENGER/])
        }
      })

      t.test('OPTIONS is 204 with Allow; other methods 405', async t => {
        const options = await app.inject({ method: 'OPTIONS', url: `${base}/secret/note`, headers: json, payload: '{bad' })
        t.equal(options.statusCode, 204)
        t.equal(options.headers.allow, 'GET, HEAD, POST, OPTIONS')
        for (const method of ['PUT', 'DELETE', 'PATCH', 'TRACE', 'SEARCH']) {
          const res = await app.inject({ method: method as 'GET', url: `${base}/secret/note`, headers: { ...mine, ...json }, payload: '{"note":"changed"}' })
          t.equal(res.statusCode, 405, method)
          t.equal(res.headers.allow, 'GET, HEAD, POST, OPTIONS')
        }
        const head = await app.inject({ method: 'HEAD', url: `${base}/secret/note`, headers: mine })
        t.equal(head.statusCode, 200)
        t.equal(head.body, '')
        t.same((await app.inject({ method: 'GET', url: `${base}/secret/note`, headers: mine })).json(), { note: 'my secret' })
      })
    })

    t.test('the session and the token are judged before the body; only an oversized body comes first', async t => {
      const app = await build(t)
      const cases: Array<[string, Record<string, string>, string | undefined, number]> = [
        ['no body and no content type', {}, undefined, 400],
        ['an empty body and no content type', {}, '', 400],
        ['malformed JSON', json, '{"note":', 400],
        ['empty JSON body', json, '', 400],
        ['not an object', json, '"just text"', 400],
        ['an array', json, '[{"note":"a"}]', 400],
        ['no note', json, '{"text":"a"}', 400],
        ['a number', json, '{"note":42}', 400],
        ['null', json, '{"note":null}', 400],
        ['an array note', json, '{"note":["a"]}', 400],
        ['a boolean note', json, '{"note":true}', 400],
        ['__proto__', json, '{"note":"a","__proto__":{"x":1}}', 400],
        ['malformed XML', { 'content-type': 'application/xml' }, '<secretnote><note>', 400],
        ['text/plain', { 'content-type': 'text/plain' }, '{"note":"a"}', 415],
        ['form data, as curl -d sends it', { 'content-type': 'application/x-www-form-urlencoded' }, 'note=a', 415],
        ['a Content-Type that is no media type', { 'content-type': 'text' }, '{"note":"a"}', 415],
        ['an empty Content-Type', { 'content-type': '' }, '{"note":"a"}', 415]
      ]
      for (const [name, headers, payload, status] of cases) {
        const me = await newSession(app, base)
        const post = async (auth: Record<string, string>) =>
          await app.inject({ method: 'POST', url: `${base}/secret/note`, headers: { 'x-challenger': me.guid, ...auth, ...headers }, ...(payload === undefined ? {} : { payload }) })
        const none = await post({})
        t.equal(none.statusCode, 401, `${name}, no token`)
        t.same(errorMessages(none), ['Send the token from POST /secret/token in the X-AUTH-TOKEN header'], name)
        const wrong = await post({ 'x-auth-token': 'wrong' })
        t.equal(wrong.statusCode, 403, `${name}, wrong token`)
        t.same(await passed(app, me.guid), [1, 30, 35, 36], `${name}: 35 and 36 are passed whatever the body`)
        const right = await post({ 'x-auth-token': me.token })
        t.equal(right.statusCode, status, `${name}, right token`)
        t.match(right.json(), { errorMessages: [String] }, name)
        t.equal((await storeOf(app).get(me.guid))?.note, '', `${name}: nothing was stored`)
        t.same(await passed(app, me.guid), [1, 30, 35, 36], `${name}: an authorized request with a bad body passes nothing`)
      }
      const unknown = await app.inject({ method: 'POST', url: `${base}/secret/note`, headers: { 'x-challenger': 'nobody', 'x-auth-token': 'x', 'content-type': 'text/plain' }, payload: 'x' })
      t.equal(unknown.statusCode, 401, 'an unknown session is 401 before the body too')
      t.match(errorMessages(unknown), [/X-CHALLENGER/])
    })

    t.test('a body over the limit is 413 before the token is looked at', async t => {
      const app = await build(t)
      const me = await newSession(app, base)
      for (const auth of [{}, { 'x-auth-token': me.token }, { 'x-auth-token': 'wrong' }]) {
        const res = await app.inject({ method: 'POST', url: `${base}/secret/note`, headers: { 'x-challenger': me.guid, ...auth, ...json }, payload: JSON.stringify({ note: 'x'.repeat(16 * 1024) }) })
        t.equal(res.statusCode, 413, JSON.stringify(auth))
      }
      t.same(await passed(app, me.guid), [1, 30], 'no challenge for a refused oversized body')
    })

    t.test('a body without a Content-Type is read as JSON', async t => {
      const app = await build(t)
      const me = await newSession(app, base)
      const res = await app.inject({ method: 'POST', url: `${base}/secret/note`, headers: { 'x-challenger': me.guid, 'x-auth-token': me.token }, payload: '{"note":"no type"}' })
      t.equal(res.statusCode, 200)
      t.same(res.json(), { note: 'no type' })
      t.ok((await passed(app, me.guid)).includes(34))
    })

    t.test('Bearer decides when both Authorization: Bearer and X-AUTH-TOKEN are sent', async t => {
      const app = await build(t)
      const me = await newSession(app, base)
      const post = async (headers: Record<string, string>) =>
        await app.inject({ method: 'POST', url: `${base}/secret/note`, headers: { 'x-challenger': me.guid, ...json, ...headers }, payload: { note: 'both' } })
      const validBearer = await post({ authorization: `Bearer ${me.token}`, 'x-auth-token': 'wrong' })
      t.equal(validBearer.statusCode, 200, 'a valid Bearer and a wrong X-AUTH-TOKEN')
      t.same(await passed(app, me.guid), [1, 30, 38], 'a Bearer write: 38, not 34 or 36')
      const wrongBearer = await post({ authorization: 'Bearer wrong', 'x-auth-token': me.token })
      t.equal(wrongBearer.statusCode, 403, 'a wrong Bearer and a valid X-AUTH-TOKEN')
      t.same(await passed(app, me.guid), [1, 30, 38], 'a wrong Bearer passes nothing: 36 needs a wrong X-AUTH-TOKEN')
      const read = await app.inject({ method: 'GET', url: `${base}/secret/note`, headers: { 'x-challenger': me.guid, authorization: `Bearer ${me.token}`, 'x-auth-token': 'wrong' } })
      t.equal(read.statusCode, 200)
      t.same(await passed(app, me.guid), [1, 30, 37, 38])
      const basicToo = await post({ authorization: basic('admin', 'password'), 'x-auth-token': me.token })
      t.equal(basicToo.statusCode, 200, 'a Basic Authorization header is not a token: X-AUTH-TOKEN decides')
      t.same(await passed(app, me.guid), [1, 30, 34, 37, 38])
    })

    t.test('a valid body with no token is 401, with a wrong token 403', async t => {
      const app = await build(t)
      const me = await newSession(app, base)
      const none = await app.inject({ method: 'POST', url: `${base}/secret/note`, headers: { 'x-challenger': me.guid, ...json }, payload: { note: 'a' } })
      t.equal(none.statusCode, 401)
      const wrong = await app.inject({ method: 'POST', url: `${base}/secret/note`, headers: { 'x-challenger': me.guid, 'x-auth-token': 'x', ...json }, payload: { note: 'a' } })
      t.equal(wrong.statusCode, 403)
    })

    t.test('error messages say what was wrong', async t => {
      const app = await build(t)
      const me = await newSession(app, base)
      const headers = { 'x-challenger': me.guid, 'x-auth-token': me.token }
      const send = async (extra: Record<string, string>, payload: string) =>
        errorMessages(await app.inject({ method: 'POST', url: `${base}/secret/note`, headers: { ...headers, ...extra }, payload }))
      t.same(await send(json, '{'), ['The request body is not valid JSON (or holds a __proto__ or constructor.prototype key)'])
      t.same(await send({}, 'note'), ['The request body is not valid JSON (or holds a __proto__ or constructor.prototype key)'], 'no Content-Type: read as JSON')
      t.same(await send({ 'content-type': 'text' }, 'a'), ['Unsupported Content-Type "text": send application/json or application/xml'])
      t.same(await send({ ...json, 'content-length': '5' }, '{"note":"longer"}'), ['The Content-Length header does not match the body'])
      t.same(await send(json, ''), ['The request body is empty; send a JSON object such as {"note": "..."}'])
      // The note's body in plain words (issue 49), saying what the body was.
      const plain = 'Send a JSON object with a string "note", such as {"note": "hi"}; '
      t.same(await send(json, '{"notes":"hi"}'), [`${plain}this body has no "note" (it has "notes")`])
      t.same(await send(json, '{"text":"a"}'), [`${plain}this body has no "note" (it has "text")`])
      t.same(await send(json, '{"Note":"a","b":1}'), [`${plain}this body has no "note" (it has "Note" and "b")`])
      t.same(await send(json, '{"a":1,"b":2,"c":3,"d":4,"e":5}'), [`${plain}this body has no "note" (it has "a", "b", "c" and 2 more)`])
      t.same(await send(json, JSON.stringify({ ['k'.repeat(5000)]: 1, 'say "hi"\n': 2 })), [`${plain}this body has no "note" (it has "${'k'.repeat(29)}…" and "say \\"hi\\"\\n")`], 'keys cut at 30 characters, quoted as JSON')
      t.same(await send(json, '{}'), [`${plain}this body has no "note" (it is an empty object)`])
      t.same(await send(json, '{"note":1}'), [`${plain}its "note" is a number`])
      t.same(await send(json, '{"note":null}'), [`${plain}its "note" is null`])
      t.same(await send(json, '{"note":["a"]}'), [`${plain}its "note" is an array`])
      t.same(await send(json, '{"note":{"text":"a"}}'), [`${plain}its "note" is an object`])
      t.same(await send(json, '{"note":true}'), [`${plain}its "note" is a boolean`])
      t.same(await send(json, '[]'), [`${plain}this body is an array`])
      t.same(await send(json, '"hi"'), [`${plain}this body is a string`])
      t.same(await send(json, '42'), [`${plain}this body is a number`])
      t.same(await send(json, 'null'), [`${plain}this body is null`])
      t.same(await send({}, '{"notes":"hi"}'), [`${plain}this body has no "note" (it has "notes")`], 'no Content-Type: read as JSON, the same words')
      t.same(await send({ 'content-type': 'application/json; charset=utf-8' }, '{"notes":"hi"}'), [`${plain}this body has no "note" (it has "notes")`])
      t.same(await send({ 'content-type': 'text/csv' }, 'a'), ['Unsupported Content-Type "text/csv": send application/json or application/xml'])
      t.same(await send(json, JSON.stringify({ note: 'x'.repeat(20000) })), ['The request body is larger than the limit of 16384 bytes'])
    })

    t.test('notes are truncated to 100 code points when stored', async t => {
      const app = await build(t)
      const me = await newSession(app, base)
      const headers = { 'x-challenger': me.guid, 'x-auth-token': me.token, ...json }
      const cases: Array<[string, string]> = [
        ['a'.repeat(100), 'a'.repeat(100)],
        ['a'.repeat(101), 'a'.repeat(100)],
        ['😀'.repeat(150), '😀'.repeat(100)],
        ['a'.repeat(99) + '😀😀', 'a'.repeat(99) + '😀'],
        ['x'.repeat(16000), 'x'.repeat(100)]
      ]
      for (const [sent, stored] of cases) {
        const res = await app.inject({ method: 'POST', url: `${base}/secret/note`, headers, payload: { note: sent } })
        t.equal(res.statusCode, 200)
        t.equal(res.json().note, stored)
        t.equal((await app.inject({ method: 'GET', url: `${base}/secret/note`, headers })).json().note, stored)
      }
    })

    t.test('note length and body limit are configurable', async t => {
      const app = await build(t, { noteMaxLength: 5, bodyLimit: 100 })
      const me = await newSession(app, base)
      const headers = { 'x-challenger': me.guid, 'x-auth-token': me.token, ...json }
      const res = await app.inject({ method: 'POST', url: `${base}/secret/note`, headers, payload: { note: 'abcdefgh' } })
      t.same(res.json(), { note: 'abcde' })
      const big = await app.inject({ method: 'POST', url: `${base}/secret/note`, headers, payload: { note: 'x'.repeat(100) } })
      t.equal(big.statusCode, 413)
    })

    t.test('challenges 31-38 pass for the exact request each names', async t => {
      const app = await build(t)
      const cases: Array<[string, 'GET' | 'POST' | 'HEAD', (s: { token: string }) => Record<string, string>, number, number[]]> = [
        ['GET wrong X-AUTH-TOKEN', 'GET', () => ({ 'x-auth-token': 'wrong' }), 403, [31]],
        ['GET no token', 'GET', () => ({}), 401, [32]],
        ['GET X-AUTH-TOKEN', 'GET', s => ({ 'x-auth-token': s.token }), 200, [33]],
        ['POST X-AUTH-TOKEN', 'POST', s => ({ 'x-auth-token': s.token }), 200, [34]],
        ['POST no token', 'POST', () => ({}), 401, [35]],
        ['POST wrong X-AUTH-TOKEN', 'POST', () => ({ 'x-auth-token': 'wrong' }), 403, [36]],
        ['GET Bearer', 'GET', s => ({ authorization: `Bearer ${s.token}` }), 200, [37]],
        ['POST Bearer', 'POST', s => ({ authorization: `Bearer ${s.token}` }), 200, [38]],
        ['GET wrong Bearer', 'GET', () => ({ authorization: 'Bearer wrong' }), 403, []],
        ['POST wrong Bearer', 'POST', () => ({ authorization: 'Bearer wrong' }), 403, []],
        ['HEAD X-AUTH-TOKEN', 'HEAD', s => ({ 'x-auth-token': s.token }), 200, []],
        ['HEAD no token', 'HEAD', () => ({}), 401, []]
      ]
      for (const [name, method, auth, status, expected] of cases) {
        const session = await newSession(app, base)
        const res = await app.inject({
          method,
          url: `${base}/secret/note`,
          headers: { 'x-challenger': session.guid, ...auth(session), ...json },
          payload: method === 'POST' ? { note: 'n' } : undefined
        })
        t.equal(res.statusCode, status, name)
        t.same(await passed(app, session.guid), [1, 30, ...expected], name)
      }
    })

    t.test('a session that ends while its note is written gets 401, not a false 200', async t => {
      // The session is gone when the request's change (the note, with its journal entry) is written.
      class EndingStore extends MemoryStore {
        override async update (): Promise<boolean> {
          return false
        }

        override async record (): Promise<boolean> {
          return false
        }
      }
      const app = await build(t, { store: new EndingStore() })
      const me = await newSession(app, base)
      const res = await app.inject({ method: 'POST', url: `${base}/secret/note`, headers: { 'x-challenger': me.guid, 'x-auth-token': me.token, ...json }, payload: { note: 'a' } })
      t.equal(res.statusCode, 401)
      t.same(res.json(), { errorMessages: [NAME_A_SESSION] })
      t.equal(res.headers['www-authenticate'], 'Bearer', 'as every 401 of the note')
    })

    t.test('a store that fails to record a refusal\'s challenge: 500 with the error body, nothing stored', async t => {
      let failing = false
      // The refusal's challenge is written with its journal entry.
      class FailingStore extends MemoryStore {
        override async record (guid: string, entry: JournalEntry, change?: SessionChange): Promise<boolean> {
          if (failing && change !== undefined) throw new Error('pass failed at /internal/place')
          return await super.record(guid, entry, change)
        }
      }
      const memory = new FailingStore()
      const app = await build(t, { store: memory })
      const me = await newSession(app, base)
      failing = true
      const res = await app.inject({ method: 'POST', url: `${base}/secret/note`, headers: { 'x-challenger': me.guid, ...json }, payload: { note: 'x' } })
      t.equal(res.statusCode, 500)
      t.same(res.json(), { errorMessages: ['Internal Server Error'] })
      t.equal((await memory.get(me.guid))?.note, '')
    })
  })
}
