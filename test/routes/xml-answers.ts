// Every XML answer is well-formed (issue 50, item 7): a note holding a character XML 1.0 cannot carry is
// refused, and one that reached the store another way (an older version, a host's own store) is answered
// with U+FFFD in its place; so is such a character anywhere else an answer shows (a journal's path).
import t from 'tap'
import { escapeXml, findingXml, noteUnfitForXml, sessionXml, unfitForXml } from '../../src/domain/http/xml.js'
import { build, newSession, storeOf } from '../helper.js'
import { wellFormed } from '../xml-well-formed.js'

const json = { 'content-type': 'application/json' }
const xml = { accept: 'application/xml' }
/** Characters no XML 1.0 document can hold, as text or as a reference. */
// Two surrogates, low before high: each alone.
const UNFIT = ['\u0000', '\u0001', '\u001f', '\udfff', '\ufffe', '\uffff', '\ud800']

t.test('a note holding a character XML cannot carry is refused with 400 and stored nowhere, by POST /secret/note and by a restore', async t => {
  const app = await build(t)
  const me = await newSession(app)
  const own = { ...json, 'x-challenger': me.guid, 'x-auth-token': me.token }
  await app.inject({ method: 'POST', url: '/secret/note', headers: own, payload: { note: 'kept' } })
  for (const c of UNFIT) {
    const note = `ab${c}c`
    const code = (note.codePointAt(2) as number).toString(16).toUpperCase().padStart(4, '0')
    // A lone surrogate is sent as JSON writes it, \ud800; JSON.stringify would write it so too.
    const res = await app.inject({ method: 'POST', url: '/secret/note', headers: own, payload: JSON.stringify({ note }) })
    t.equal(res.statusCode, 400, `U+${code}`)
    t.same(res.json(), { errorMessages: [`The note holds a character XML cannot carry (U+${code} at character 3): control characters other than tab and line breaks, U+FFFE, U+FFFF and lone surrogates are refused`] })
    const put = await app.inject({ method: 'PUT', url: `/challenger/${me.guid}`, headers: json, payload: JSON.stringify({ secretNote: note }) })
    t.equal(put.statusCode, 400, `a restore with U+${code}`)
    t.match(put.json().errorMessages, [/^Invalid request: The note holds a character XML cannot carry/])
  }
  t.equal((await storeOf(app).get(me.guid))?.note, 'kept', 'no refusal changed the note')
  const fine = 'tab\tline\nreturn\r end\u0085 \ud7ff \ue000 \ufffd \u{10ffff} 😀'
  const res = await app.inject({ method: 'POST', url: '/secret/note', headers: { ...own, ...xml }, payload: JSON.stringify({ note: fine }) })
  t.equal(res.statusCode, 200, 'every character XML can carry is kept')
  t.equal(wellFormed(res.body), true)
  t.equal((await storeOf(app).get(me.guid))?.note, [...fine].slice(0, 100).join(''))
})

t.test('GET /secret/note, GET /challenger/{guid} and the journal answer well-formed XML whatever the store holds', async t => {
  const app = await build(t)
  const me = await newSession(app)
  const store = storeOf(app)
  const own = { 'x-challenger': me.guid, 'x-auth-token': me.token }
  await app.inject({ method: 'GET', url: '/secret/note', headers: own })
  // As an older version, or a host's own store, may hold them.
  const odd = `a${UNFIT.join('')}z`
  await store.update(me.guid, { note: odd })
  await store.setName(me.guid, `N${UNFIT.join('')}`)
  const [entry] = await store.journal(me.guid) ?? []
  if (entry === undefined) throw new Error('no journal entry')
  await store.record(me.guid, { ...entry, path: `/p${UNFIT.join('')}`, contentType: `text/${UNFIT.join('')}` })
  const answers = [
    await app.inject({ method: 'GET', url: '/secret/note', headers: { ...own, ...xml } }),
    await app.inject({ method: 'GET', url: `/challenger/${me.guid}`, headers: xml }),
    await app.inject({ method: 'GET', url: `/challenger/${me.guid}/requests`, headers: xml })
  ]
  for (const answer of answers) {
    t.equal(answer.statusCode, 200)
    t.equal(wellFormed(answer.body), true, answer.body.slice(0, 80))
  }
  t.match(answers[0]?.body, `<note>a${'\ufffd'.repeat(UNFIT.length)}z</note>`, 'each such character is U+FFFD')
  t.match(answers[2]?.body, `<path>/p${'\ufffd'.repeat(UNFIT.length)}</path>`)
  t.same((await app.inject({ method: 'GET', url: '/secret/note', headers: own })).json(), { note: odd }, 'JSON, which can carry them, answers the note as stored')
})

t.test('escapeXml and unfitForXml', async t => {
  t.equal(escapeXml('<a href="x">&\'\r</a>'), '&lt;a href=&quot;x&quot;&gt;&amp;&apos;&#13;&lt;/a&gt;')
  t.equal(escapeXml('\u0000\t\n\ud83d\ude00\ud83d'), '\ufffd\t\n😀\ufffd', 'a pair is a character, a lone surrogate is not')
  t.equal(unfitForXml('fine\t😀'), undefined)
  t.equal(unfitForXml('😀😀\uffff'), 'U+FFFF at character 3', 'counted in characters, not UTF-16 units')
  t.equal(unfitForXml('\udc00'), 'U+DC00 at character 1')
  t.equal(noteUnfitForXml('fine'), undefined)
  t.equal(wellFormed('<a>\u0001</a>'), 'U+0001 at 3', 'the check itself finds what it should')
  t.not(wellFormed('<a><b></a>'), true)
})

t.test('findingXml: a found defect, or the explanation of a correct answer, well-formed either way', async t => {
  const found = findingXml({ verdict: 'found', defect: { id: 'heartbeat-200', name: 'A <heartbeat>', breaks: '204 & no body', why: 'status codes' }, found: 1, hidden: 3, complete: false })
  t.equal(found, '<?xml version="1.0" encoding="UTF-8"?><finding><verdict>found</verdict><defect><id>heartbeat-200</id><name>A &lt;heartbeat&gt;</name>' +
    '<breaks>204 &amp; no body</breaks><why>status codes</why></defect><found>1</found><hidden>3</hidden><complete>false</complete></finding>')
  const correct = findingXml({ verdict: 'correct', explanation: 'It was right', found: 3, hidden: 3, complete: true })
  t.equal(correct, '<?xml version="1.0" encoding="UTF-8"?><finding><verdict>correct</verdict><explanation>It was right</explanation><found>3</found><hidden>3</hidden><complete>true</complete></finding>')
  t.same([wellFormed(found), wellFormed(correct)], [true, true])
})

t.test('sessionXml: a named hunt session, with its hunt counted and the defects found, well-formed', async t => {
  const xml = sessionXml({ xChallenger: 'g', xAuthToken: 't', secretNote: 'a & b', challengeStatus: { '02': false, '01': true }, name: 'Ada', hunt: { hidden: 3, found: ['heartbeat-200'], complete: false } })
  t.equal(xml, '<?xml version="1.0" encoding="UTF-8"?><challenger><xChallenger>g</xChallenger><xAuthToken>t</xAuthToken><secretNote>a &amp; b</secretNote>' +
    '<challengeStatus><challenge id="01">true</challenge><challenge id="02">false</challenge></challengeStatus><name>Ada</name>' +
    '<hunt><hidden>3</hidden><found><id>heartbeat-200</id></found><complete>false</complete></hunt></challenger>')
  t.equal(wellFormed(xml), true)
})
