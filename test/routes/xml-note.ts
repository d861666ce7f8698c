// XML note bodies (issue 50, item 2 and part of 7): the session and the token are judged before an XML body
// is read, so a stranger's XML costs what the same bytes of JSON cost; the XML has limits fit for a note,
// and its errors are short.
import type { AddressInfo } from 'node:net'
import { request } from 'node:http'
import t, { type Test } from 'tap'
import { readNoteXml, XmlError, xmlNoteLimits } from '../../src/domain/http/xml.js'
import type { FastifyInstance } from 'fastify'
import type { ApiChallengesOptions } from '../../src/app.js'
import { createServer } from '../../src/server.js'
import { MemoryStore } from '../../src/domain/sessions/memory-store.js'
import { build, newSession, storeOf } from '../helper.js'

const xmlType = { 'content-type': 'application/xml' }
const xmlNote = (note: string): string => `<secretnote><note>${note}</note></secretnote>`
/** The attack's body: 16,000 bytes of empty elements. */
const BOMB = '<a/>'.repeat(4000)

/** The service, made as npm start makes it, counting the XML bodies it read: plugins/bodies.ts keeps an
 * XML body as text (request.xmlText) until its reader takes it (and sets it to null), then parses it. */
async function counted (t: Test, options: ApiChallengesOptions = {}): Promise<{ app: FastifyInstance, store: MemoryStore, reads: () => number }> {
  let reads = 0
  const store = new MemoryStore({})
  const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { ...options, store } })
  app.addHook('onResponse', async request => {
    if (/xml/.test(request.headers['content-type'] ?? '') && request.xmlText === null) reads++
  })
  t.teardown(() => app.close())
  await app.ready()
  return { app, store, reads: () => reads }
}

/** POST over a real socket: the status and the body. */
async function post (port: number, path: string, headers: Record<string, string>, body: string): Promise<[number, string]> {
  return await new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, res => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', chunk => { text += chunk as string })
      res.on('end', () => resolve([res.statusCode as number, text]))
    })
    req.on('error', reject)
    req.end(body)
  })
}

t.test('the attack: 16 KB of <a/>×4000 without a session, an unknown one or a token is 401 (or 403) over a socket, and the XML is never read', async t => {
  const { app, store, reads } = await counted(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as AddressInfo).port
  const me = await newSession(app)
  const [status, body] = await post(port, '/secret/note', xmlType, BOMB)
  t.equal(status, 401, 'no session')
  t.same(JSON.parse(body), { errorMessages: [JSON.parse(body).errorMessages[0]] }, 'the one error body')
  t.equal((await post(port, '/secret/note', { ...xmlType, 'x-challenger': '11111111-2222-4333-8444-555555555555' }, BOMB))[0], 401, 'an unknown session')
  t.equal((await post(port, '/api/secret/note', { ...xmlType, 'x-challenger': me.guid }, BOMB))[0], 401, 'no token')
  t.equal((await post(port, '/secret/note', { 'content-type': 'text/xml', 'x-challenger': me.guid, 'x-auth-token': 'f'.repeat(32) }, BOMB))[0], 403, 'a wrong token')
  t.equal(reads(), 0, 'the XML reader was not reached')
  const [refused, said] = await post(port, '/secret/note', { ...xmlType, 'x-challenger': me.guid, 'x-auth-token': me.token }, BOMB)
  t.equal(refused, 400, 'with the token, the body is read, and refused for its size')
  t.same(JSON.parse(said), { errorMessages: ['An XML note body may be at most 2048 bytes; this one is 16000'] })
  t.equal(reads(), 1, 'read once, after the token')
  t.equal((await post(port, '/secret/note', { ...xmlType, 'x-challenger': me.guid, 'x-auth-token': me.token }, xmlNote('hello')))[0], 200)
  t.equal((await store.get(me.guid))?.note, 'hello')
})

t.test('the order of the answers is kept: 413 first, then 401 and 403, then the XML\'s 400, then the note', async t => {
  const app = await build(t)
  const me = await newSession(app)
  const inject = async (headers: Record<string, string>, payload: string) => await app.inject({ method: 'POST', url: '/secret/note', headers: { ...xmlType, ...headers }, payload })
  const own = { 'x-challenger': me.guid, 'x-auth-token': me.token }
  t.equal((await inject({}, '<a>'.repeat(6000))).statusCode, 413, 'over BODY_LIMIT, before the session')
  t.equal((await inject({}, '<secretnote><note>')).statusCode, 401, 'malformed XML without a session')
  t.equal((await inject({ 'x-challenger': me.guid, 'x-auth-token': 'bad' }, '<secretnote><note>')).statusCode, 403, 'malformed XML with a wrong token')
  const malformed = await inject(own, '<secretnote><note>')
  t.equal(malformed.statusCode, 400)
  t.same(malformed.json(), { errorMessages: ['The body is not well-formed XML: an element is not closed'] })
  const noNote = await inject(own, '<secretnote><notes>x</notes></secretnote>')
  t.equal(noNote.statusCode, 400, 'read, then validated as the schema validates JSON')
  t.match(noNote.json().errorMessages, [/this body has no <note> inside a <secretnote>$/])
  t.equal((await storeOf(app).get(me.guid))?.note, '', 'no refusal changed the note')
})

t.test('the XML limits each answer 400 with the one error body and a short message', async t => {
  const app = await build(t)
  const me = await newSession(app)
  const own = { ...xmlType, 'x-challenger': me.guid, 'x-auth-token': me.token }
  const nest = (depth: number): string => '<e>'.repeat(depth) + 'x' + '</e>'.repeat(depth)
  const cases: Array<[string, string, string]> = [
    ['over 2,048 bytes', xmlNote('x'.repeat(2048)), 'An XML note body may be at most 2048 bytes; this one is 2086'],
    ['nine elements', `<secretnote><note>x</note>${'<e/>'.repeat(7)}</secretnote>`, 'An XML note may hold at most 8 elements'],
    ['five levels', `<secretnote>${nest(4)}</secretnote>`, 'An XML note may nest elements at most 4 deep'],
    ['unclosed tags', `<secretnote><note>${'<a>'.repeat(600)}`, 'An XML note may nest elements at most 4 deep'],
    ['two roots', '<secretnote><note>x</note></secretnote><secretnote/>', 'The body is not well-formed XML: more than one root element'],
    ['text after the root', '<secretnote><note>x</note></secretnote>x', 'The body is not well-formed XML: text outside the root element'],
    ['an end tag that does not match', '<secretnote><note>x</nope></secretnote>', 'The body is not well-formed XML: an end tag does not match its start tag'],
    ['a raw control character', xmlNote('a\u0001b'), 'The body holds a character XML 1.0 does not allow: U+0001 at character 20'],
    ['a reference to U+0000', xmlNote('a&#0;b'), '&#0; is not a character XML allows'],
    ['a reference to U+FFFF', xmlNote('&#xFFFF;'), '&#xFFFF; is not a character XML allows'],
    ['a reference to a surrogate', xmlNote('&#xD800;'), '&#xD800; is not a character XML allows'],
    ['a reserved name', '<secretnote><__proto__>x</__proto__><note>a</note></secretnote>', 'The body is not well-formed XML: the parser refused it']
  ]
  for (const [name, payload, message] of cases) {
    const res = await app.inject({ method: 'POST', url: '/secret/note', headers: own, payload })
    t.equal(res.statusCode, 400, name)
    t.same(res.json(), { errorMessages: [message] }, name)
  }
  t.equal((await storeOf(app).get(me.guid))?.note, '', 'nothing was stored')
  t.equal((await app.inject({ method: 'POST', url: '/secret/note', headers: own, payload: `<?xml version="1.0"?><!-- a note --><secretnote>\n  <note>${'&#x1F600;'.repeat(100)}</note>\n</secretnote>` })).statusCode, 200,
    'a note of 100 characters, each a reference, with a declaration, a comment and indentation, fits')
  t.equal((await storeOf(app).get(me.guid))?.note, '😀'.repeat(100))
})

t.test('an XML error never repeats the body: 9 KB of unclosed tags is answered in a short message', async t => {
  // A large note length makes room for the body, so that the parser's own limits are what refuse it.
  const app = await build(t, { noteMaxLength: 1000 })
  const me = await newSession(app)
  const own = { ...xmlType, 'x-challenger': me.guid, 'x-auth-token': me.token }
  for (const payload of [`<secretnote><note>${'<abcdefgh>'.repeat(900)}`, `<secretnote><note>${'<a>x</b>'.repeat(1000)}`, `<secretnote>${'<n>'.repeat(3)}${'</n>'.repeat(3)}<z${'y'.repeat(9000)}`]) {
    const res = await app.inject({ method: 'POST', url: '/secret/note', headers: own, payload })
    t.equal(res.statusCode, 400)
    t.ok(res.body.length < 120, `${res.body.length} bytes out for ${payload.length} in`)
  }
})

t.test('the limits follow NOTE_MAX_LENGTH: 16 bytes a character when that is more than 2 KiB', async t => {
  t.same(xmlNoteLimits(100), { bytes: 2048, elements: 8, depth: 4 })
  t.same(xmlNoteLimits(1000), { bytes: 16_000, elements: 8, depth: 4 })
  t.same(readNoteXml(xmlNote('x'.repeat(5000)), xmlNoteLimits(1000)), { note: 'x'.repeat(5000) })
  t.throws(() => readNoteXml(xmlNote('x'.repeat(5000))), new XmlError('An XML note body may be at most 2048 bytes; this one is 5038'))
})

t.test('readNoteXml reads what a note may be and refuses the rest', async t => {
  t.same(readNoteXml('\ufeff<secretnote><note>bom</note></secretnote>'), { note: 'bom' }, 'a byte-order mark')
  t.same(readNoteXml('<secretnote a="1" b=\'>\'><note>x</note></secretnote>'), { note: 'x' }, 'attributes, a > inside one')
  t.same(readNoteXml('<secretnote><note><![CDATA[<b>]]></note></secretnote>'), { note: '<b>' }, 'CDATA')
  t.same(readNoteXml('<secretnote><note>a</note></secretnote><?pi after?>'), { note: 'a' }, 'a processing instruction after the root')
  t.same(readNoteXml('<secretnote><note>a</note></secretnote>\n'), { note: 'a' }, 'a line break after the root')
  const refused: Array<[string, string]> = [
    ['', 'The body is not well-formed XML: there is no root element'],
    ['<!-- only a comment -->', 'The body is not well-formed XML: there is no root element'],
    ['<secretnote><!-- open', 'The body is not well-formed XML: a comment is not closed'],
    ['<?xml version="1.0"', 'The body is not well-formed XML: a declaration is not closed'],
    ['<secretnote><note><![CDATA[x', 'The body is not well-formed XML: a CDATA section is not closed'],
    ['<![CDATA[x]]><secretnote/>', 'The body is not well-formed XML: a tag is not a well-formed tag'],
    ['<secretnote><note a="<">x</note></secretnote>', 'The body is not well-formed XML: a tag is not a well-formed tag'],
    ['<secretnote></secretnote x="1">', 'The body is not well-formed XML: an end tag does not match its start tag'],
    ['<secretnote></secretnote/>', 'The body is not well-formed XML: an end tag does not match its start tag'],
    ['<secretnote><!ENTITY x "y"></secretnote>', 'The body is not well-formed XML: a tag is not a well-formed tag'],
    ['<secretnote><note>&#x110000;</note></secretnote>', '&#x110000; is not a character XML allows']
  ]
  for (const [xml, message] of refused) t.throws(() => readNoteXml(xml), new XmlError(message), JSON.stringify(xml))
})

t.test('the journal says an XML body after a refused token was not read', async t => {
  const app = await build(t)
  const me = await newSession(app)
  await app.inject({ method: 'POST', url: '/secret/note', headers: { ...xmlType, 'x-challenger': me.guid, 'x-auth-token': 'f'.repeat(32) }, payload: xmlNote('x') })
  await app.inject({ method: 'POST', url: '/secret/note', headers: { ...xmlType, 'x-challenger': me.guid, 'x-auth-token': me.token }, payload: xmlNote('x') })
  await app.inject({ method: 'POST', url: '/secret/note', headers: { ...xmlType, 'x-challenger': me.guid, 'x-auth-token': me.token }, payload: '<secretnote>' })
  const journal = (await app.inject({ method: 'GET', url: `/challenger/${me.guid}/requests` })).json() as { requests: Array<{ status: number, body?: string }> }
  t.same(journal.requests.slice(0, 3).map(r => [r.status, r.body]), [[400, 'malformed'], [200, 'note'], [403, 'ignored']], 'newest first')
})
