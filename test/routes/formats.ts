// Content negotiation: JSON and XML for every body, 406 and 415, safe XML parsing, exact round trips.
import t from 'tap'
import { challenges } from '../../src/domain/challenges/catalogue.js'
import { readNoteXml, XmlError } from '../../src/domain/http/xml.js'
import { BASES, baseName, build, newSession, storeOf } from '../helper.js'

const XML_DECL = '<?xml version="1.0" encoding="UTF-8"?>'
const xmlNote = (note: string): string => `<secretnote><note>${note}</note></secretnote>`

function escape (text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

// Every test in this loop runs at both bases of the API, with the same expectations.
for (const base of BASES) {
  t.test(baseName(base), async t => {
    t.test('Accept picks the format, with quality values; JSON is the default', async t => {
      const app = await build(t)
      const me = await newSession(app, base)
      const auth = { 'x-challenger': me.guid, 'x-auth-token': me.token }
      const cases: Array<[string | undefined, string]> = [
        [undefined, 'application/json; charset=utf-8'],
        ['*/*', 'application/json; charset=utf-8'],
        ['application/*', 'application/json; charset=utf-8'],
        ['application/json', 'application/json; charset=utf-8'],
        ['application/xml', 'application/xml; charset=utf-8'],
        ['text/xml', 'text/xml; charset=utf-8'],
        ['application/xml;q=0.9, application/json;q=0.5', 'application/xml; charset=utf-8'],
        ['application/json;q=0.9, application/xml;q=0.5', 'application/json; charset=utf-8'],
        ['text/html, text/xml;q=0.1', 'text/xml; charset=utf-8'],
        ['image/png, */*;q=0.1', 'application/json; charset=utf-8']
      ]
      for (const [accept, type] of cases) {
        const res = await app.inject({ method: 'GET', url: `${base}/secret/note`, headers: accept === undefined ? auth : { ...auth, accept } })
        t.equal(res.statusCode, 200, String(accept))
        t.equal(res.headers['content-type'], type, String(accept))
        t.equal(res.body, type.startsWith('application/json') ? '{"note":""}' : `${XML_DECL}<secretnote><note/></secretnote>`)
      }
    })

    t.test('every body-bearing route answers in XML', async t => {
      const app = await build(t)
      const me = await newSession(app, base)
      const xml = { accept: 'application/xml' }
      const auth = { 'x-challenger': me.guid, 'x-auth-token': me.token, ...xml }
      const written = await app.inject({ method: 'POST', url: `${base}/secret/note`, headers: { ...auth, 'content-type': 'application/json' }, payload: { note: 'hi' } })
      t.equal(written.body, `${XML_DECL}<secretnote><note>hi</note></secretnote>`)
      const list = await app.inject({ method: 'GET', url: `${base}/challenges`, headers: auth })
      t.match(list.body, new RegExp(`^${escape(XML_DECL)}<challenges><challenge><id>1</id><name>POST /challenger \\(201\\)</name><description>[^<]+</description><status>true</status></challenge><challenge><id>2</id>`))
      t.equal(list.body.match(/<challenge>/g)?.length, challenges.length)
      const session = await app.inject({ method: 'GET', url: `${base}/challenger/${me.guid}`, headers: xml })
      t.match(session.body, `<challenger><xChallenger>${me.guid}</xChallenger><xAuthToken>${me.token}</xAuthToken><secretNote>hi</secretNote><challengeStatus><challenge id="01">true</challenge><challenge id="02">true</challenge><challenge id="25">false</challenge>`)
      const restored = await app.inject({ method: 'PUT', url: `${base}/challenger/${me.guid}`, headers: { ...xml, 'content-type': 'application/json' }, payload: (await app.inject({ method: 'GET', url: `${base}/challenger/${me.guid}` })).body })
      t.equal(restored.statusCode, 200)
      t.equal(restored.headers['content-type'], 'application/xml; charset=utf-8')
      t.match(restored.body, /^<\?xml[^>]*\?><challenger>/)
    })

    t.test('errors come in the asked format; the status codes do not change', async t => {
      const app = await build(t)
      const me = await newSession(app, base)
      const cases: Array<[Record<string, string>, number, string]> = [
        [{ 'x-challenger': me.guid }, 401, 'Send the token from POST /secret/token in the X-AUTH-TOKEN header'],
        [{ 'x-challenger': me.guid, 'x-auth-token': 'wrong' }, 403, 'The token is not the one issued to this session'],
        [{ 'x-challenger': 'nobody', 'x-auth-token': me.token }, 401, 'The X-CHALLENGER header must name a session: create one with POST /challenger']
      ]
      for (const [headers, status, message] of cases) {
        const res = await app.inject({ method: 'GET', url: `${base}/secret/note`, headers: { ...headers, accept: 'text/xml' } })
        t.equal(res.statusCode, status)
        t.equal(res.headers['content-type'], 'text/xml; charset=utf-8')
        t.equal(res.body, `${XML_DECL}<errorMessages><errorMessage>${message}</errorMessage></errorMessages>`)
      }
      const missing = await app.inject({ method: 'GET', url: `${base}/nothing`, headers: { accept: 'application/xml' } })
      t.equal(missing.statusCode, 404)
      t.equal(missing.body, `${XML_DECL}<errorMessages><errorMessage>No resource at GET ${base}/nothing</errorMessage></errorMessages>`)
      const token = await app.inject({ method: 'POST', url: `${base}/secret/token`, headers: { accept: 'application/xml', 'x-challenger': me.guid } })
      t.equal(token.statusCode, 401)
      t.match(token.body, /<errorMessages><errorMessage>Send Basic credentials/)
    })

    t.test('an Accept that allows neither format is 406 in JSON, before auth and validation', async t => {
      const app = await build(t)
      const me = await newSession(app, base)
      const accept = 'image/png'
      const requests: Array<[string, string, Record<string, string>, string?]> = [
        ['GET', `${base}/secret/note`, {}],
        ['HEAD', `${base}/secret/note`, { 'x-auth-token': me.token }],
        ['POST', `${base}/secret/note`, { 'content-type': 'application/json' }, '{not json'],
        ['POST', `${base}/secret/note`, { 'x-auth-token': 'wrong', 'content-type': 'text/plain' }, 'x'],
        ['GET', `${base}/challenges`, {}],
        ['GET', `${base}/challenger/${me.guid}`, {}],
        ['PUT', `${base}/challenger/${me.guid}`, { 'content-type': 'application/json' }, '{}']
      ]
      for (const [method, url, headers, payload] of requests) {
        const res = await app.inject({ method: method as 'GET', url, headers: { 'x-challenger': me.guid, accept, ...headers }, payload })
        t.equal(res.statusCode, 406, `${method} ${url}`)
        if (method !== 'HEAD') t.same(res.json(), { errorMessages: ['Accept "image/png" allows neither application/json nor application/xml (or text/xml)'] })
      }
      t.equal((await storeOf(app).get(me.guid))?.note, '')
    })

    t.test('answers without a body never turn into 406', async t => {
      const app = await build(t)
      const accept = { accept: 'image/png' }
      const created = await app.inject({ method: 'POST', url: `${base}/challenger`, headers: accept })
      t.equal(created.statusCode, 201)
      const guid = created.headers['x-challenger'] as string
      const token = await app.inject({ method: 'POST', url: `${base}/secret/token`, headers: { ...accept, 'x-challenger': guid, authorization: 'Basic ' + Buffer.from('admin:password').toString('base64') } })
      t.equal(token.statusCode, 201)
      t.equal((await app.inject({ method: 'GET', url: `${base}/heartbeat`, headers: accept })).statusCode, 204)
      t.equal((await app.inject({ method: 'PATCH', url: `${base}/heartbeat`, headers: accept })).statusCode, 500)
      t.equal((await app.inject({ method: 'OPTIONS', url: `${base}/secret/note`, headers: accept })).statusCode, 204)
      t.equal((await app.inject({ method: 'POST', url: `${base}/challenger`, headers: { ...accept, 'x-challenger': guid } })).statusCode, 200)
      const refused = await app.inject({ method: 'DELETE', url: `${base}/secret/note`, headers: accept })
      t.equal(refused.statusCode, 405)
      t.equal(refused.headers['content-type'], 'application/json; charset=utf-8', 'its error body falls back to JSON')
    })

    t.test('POST /secret/note takes XML, validated exactly as JSON', async t => {
      const app = await build(t)
      const me = await newSession(app, base)
      const auth = { 'x-challenger': me.guid, 'x-auth-token': me.token }
      for (const type of ['application/xml', 'text/xml', 'application/xml; charset=utf-8']) {
        const res = await app.inject({ method: 'POST', url: `${base}/secret/note`, headers: { ...auth, 'content-type': type }, payload: xmlNote(type) })
        t.equal(res.statusCode, 200, type)
        t.same(res.json(), { note: type })
      }
      const bad: Array<[string, string, RegExp]> = [
        ['no note', '<secretnote></secretnote>', /this body has no <note> inside a <secretnote>$/],
        ['another root', '<note>x</note>', /this body has no <note> inside a <secretnote>$/],
        ['a note with elements', '<secretnote><note><b>x</b></note></secretnote>', /this body has a <note> that is not text only/],
        ['two notes', '<secretnote><note>a</note><note>b</note></secretnote>', /this body has a <note> that is not text only/],
        ['malformed', '<secretnote><note>x</secretnote>', /not well-formed XML/],
        ['not XML at all', '{"note":"x"}', /not well-formed XML/],
        ['a billion laughs', '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><secretnote><note>&lol2;</note></secretnote>', /DOCTYPE is not allowed/],
        ['an external entity', '<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><secretnote><note>&xxe;</note></secretnote>', /DOCTYPE is not allowed/],
        ['deep nesting', '<secretnote><note>' + '<a>'.repeat(50) + 'x' + '</a>'.repeat(50) + '</note></secretnote>', /^An XML note may nest elements at most 4 deep$/],
        ['a character past Unicode', xmlNote('&#x110000;'), /is not a character/],
        ['a prototype key', '<secretnote><__proto__>x</__proto__><note>a</note></secretnote>', /not well-formed XML/]
      ]
      for (const [name, payload, message] of bad) {
        const res = await app.inject({ method: 'POST', url: `${base}/secret/note`, headers: { ...auth, 'content-type': 'application/xml' }, payload })
        t.equal(res.statusCode, 400, name)
        t.match(res.json().errorMessages, [message], name)
      }
      const big = await app.inject({ method: 'POST', url: `${base}/secret/note`, headers: { ...auth, 'content-type': 'application/xml' }, payload: xmlNote('x'.repeat(20_000)) })
      t.equal(big.statusCode, 413)
      t.equal((await storeOf(app).get(me.guid))?.note, 'application/xml; charset=utf-8', 'no refused body changed the note')
      const put = await app.inject({ method: 'PUT', url: `${base}/challenger/${me.guid}`, headers: { 'content-type': 'application/xml' }, payload: '<challenger/>' })
      t.equal(put.statusCode, 415, 'only the note takes XML')
      t.same(put.json(), { errorMessages: ['Unsupported Content-Type "application/xml": send application/json'] })
      t.equal((await app.inject({ method: 'POST', url: `${base}/secret/note`, headers: { ...auth, 'content-type': 'application/xml' }, payload: xmlNote('ok') })).statusCode, 200)
      t.equal((await app.inject({ method: 'POST', url: `${base}/secret/note`, headers: { 'x-challenger': me.guid, 'content-type': 'application/xml' }, payload: xmlNote('ok') })).statusCode, 401, 'auth is unchanged')
    })

    t.test('awkward text round-trips exactly between JSON and XML', async t => {
      const app = await build(t, { noteMaxLength: 1000 })
      const me = await newSession(app, base)
      const auth = { 'x-challenger': me.guid, 'x-auth-token': me.token }
      const texts = ['<a href="x">&amp;</a>', 'quotes " and \' both', 'é ü ß 中文 😀 \u{1F9EA}', '  leading and trailing  ', 'line\nbreaks\r\nand\ttabs', '&lt; is not <', '42', '', ']]> <![CDATA[']
      for (const text of texts) {
        await app.inject({ method: 'POST', url: `${base}/secret/note`, headers: { ...auth, 'content-type': 'application/json' }, payload: { note: text } })
        const asXml = await app.inject({ method: 'GET', url: `${base}/secret/note`, headers: { ...auth, accept: 'application/xml' } })
        const inner = /<secretnote>(<note\/>|<note>[^]*<\/note>)<\/secretnote>$/.exec(asXml.body)?.[1] as string
        t.same(readNoteXml(`<secretnote>${inner}</secretnote>`), { note: text }, `JSON → XML: ${JSON.stringify(text)}`)
        await app.inject({ method: 'POST', url: `${base}/secret/note`, headers: { ...auth, 'content-type': 'application/xml' }, payload: asXml.body })
        const back = await app.inject({ method: 'GET', url: `${base}/secret/note`, headers: auth })
        t.same(back.json(), { note: text }, `XML → JSON: ${JSON.stringify(text)}`)
      }
    })
  })
}

t.test('readNoteXml decodes references in one pass and refuses what is not XML', async t => {
  t.same(readNoteXml(xmlNote('&amp;lt; &#60; &#x3c; &apos;')), { note: '&lt; < < \'' })
  t.same(readNoteXml('<secretnote><note/></secretnote>'), { note: '' })
  t.same(readNoteXml('<secretnote/>'), {})
  t.same(readNoteXml('<?xml version="1.0"?><secretnote><note>x</note></secretnote>'), { note: 'x' })
  t.throws(() => readNoteXml('<!doctype x><secretnote/>'), XmlError)
  t.throws(() => readNoteXml('<a>'), { name: 'XmlError', message: /not well-formed/ })
})
