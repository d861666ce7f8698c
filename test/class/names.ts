// Learners' names that show as nothing, or pass for another's (issue 50, item 7): refused with a 400 that
// names the character or the word, on POST /challenger, PATCH and PUT, and nothing changes.
import t from 'tap'
import { checkName } from '../../src/domain/sessions/names.js'
import { build, errorMessages, newSession, storeOf } from '../helper.js'

const json = { 'content-type': 'application/json' }
const invisible = (code: string, at: number): string =>
  `name must not contain characters that show as nothing (U+${code} at character ${at}): zero-width spaces and joiners, fillers, blanks, tag characters`
const mixed = (word: string, scripts: string): string =>
  `name must not mix scripts within a word (${JSON.stringify(word)} has ${scripts} letters): look-alike letters pass for another name`

t.test('names that show as nothing, or as another name, are refused over HTTP, and nothing changes', async t => {
  const app = await build(t)
  const { guid } = await newSession(app)
  await app.inject({ method: 'PATCH', url: `/challenger/${guid}`, headers: json, payload: { name: 'Kept' } })
  const cases: Array<[string, string]> = [
    ['\u200b', invisible('200B', 1)],
    ['Ada\u200b', invisible('200B', 4)],
    ['\u3164', invisible('3164', 1)],
    ['\u2800', invisible('2800', 1)],
    ['\u{e0041}\u{e0064}\u{e0061}', invisible('E0041', 1)],
    ['Ad\u00ada', invisible('00AD', 3)],
    ['A\u2060da', invisible('2060', 2)],
    ['\u115f\u1160', invisible('115F', 1)],
    ['\u0301', 'name must show something: it has no letter, digit, punctuation or symbol'],
    ['P\u0430ul', mixed('P\u0430ul', 'Latin and Cyrillic')],
    ['Ann \u0410nna', mixed('\u0410nna', 'Cyrillic and Latin')],
    ['\u03a9mega', mixed('\u03a9mega', 'Greek and Latin')]
  ]
  for (const [name, message] of cases) {
    const before = await storeOf(app).get(guid)
    for (const [method, url] of [['PATCH', `/challenger/${guid}`], ['POST', '/challenger'], ['PUT', `/challenger/${guid}`]] as const) {
      const res = await app.inject({ method, url, headers: json, payload: JSON.stringify({ name }) })
      t.equal(res.statusCode, 400, `${method} ${JSON.stringify(name)}`)
      t.same(errorMessages(res), [`Invalid request: ${message}`])
    }
    t.same(await storeOf(app).get(guid), before, 'nothing changed')
  }
  const fine = ['Ivan Иванов', 'Σοφία', 'José Zoë', '山田 Taro', 'やまだTaro', '김민준', 'علی\u200cرضا', '👩\u200d💻 Dev', '❤\ufe0f Ann', 'Ann-Марія', 'R2-D2']
  for (const name of fine) {
    const res = await app.inject({ method: 'PATCH', url: `/challenger/${guid}`, headers: json, payload: JSON.stringify({ name }) })
    t.equal(res.statusCode, 200, name)
    t.equal((await storeOf(app).get(guid))?.name, name)
  }
})

t.test('where a joiner or a selector does visible work it is kept; elsewhere it is refused', async t => {
  t.same(checkName('\u0915\u094d\u200d\u0937'), { name: '\u0915\u094d\u200d\u0937' }, 'a joiner between Devanagari letters')
  t.same(checkName('An\u200cn'), { refused: invisible('200C', 3) }, 'a non-joiner in a Latin word changes nothing that shows')
  t.same(checkName('\u200dAda'), { refused: invisible('200D', 1) }, 'a joiner at the start')
  t.same(checkName('\u{1f469}\u200d'), { refused: invisible('200D', 2) }, 'a joiner at the end')
  t.same(checkName('-Ann-'), { name: '-Ann-' }, 'punctuation around a word')
  t.same(checkName('Ada\ufe0f'), { refused: invisible('FE0F', 4) }, 'an emoji selector after a letter')
  t.same(checkName('1\ufe0f\u20e3'), { name: '1\ufe0f\u20e3' }, 'a keycap')
  t.same(checkName('\u845b\u{e0100}'), { name: '\u845b\u{e0100}' }, 'an ideograph\'s variant')
  t.same(checkName('A\u{e0100}'), { refused: invisible('E0100', 2) }, 'that selector after a letter')
  t.same(checkName('\u{1f44d}\u{1f3fd}'), { name: '\u{1f44d}\u{1f3fd}' }, 'an emoji with its skin tone')
  t.same(checkName('x\u16a0'), { refused: mixed('x\u16a0', 'Latin and Runic') })
  t.same(checkName('x\u{10330}'), { refused: mixed('x\u{10330}', 'Latin and U+10330') }, 'a letter of a script not in the list is a script of its own')
  t.same(checkName('ABC漢字'), { name: 'ABC漢字' }, 'Latin beside Han (UTS #39, highly restrictive)')
  t.same(checkName('漢字\u0430'), { refused: mixed('漢字\u0430', 'Han and Cyrillic') }, 'Cyrillic beside Han is not')
  t.same(checkName('12 34'), { name: '12 34' }, 'digits are neutral')
})

t.test('separators, annotation characters, spaces but the plain one and stacked marks are refused over HTTP (issue 58)', async t => {
  const app = await build(t)
  const { guid } = await newSession(app)
  const space = (code: string, at: number): string => `name must use plain spaces, not U+${code} at character ${at} (a no-break, thin, hair, figure or other space)`
  const cases: Array<[string, string]> = [
    ['Ada\u2028Lovelace', 'name must not contain a line separator (U+2028): it breaks the line of the board'],
    ['Ada\u2029Lovelace', 'name must not contain a paragraph separator (U+2029): it breaks the line of the board'],
    ['\ufff9Ada\ufffaruby\ufffb', 'name must not contain interlinear annotation characters (U+FFF9)'],
    ['Ada\ufffbx', 'name must not contain interlinear annotation characters (U+FFFB)'],
    ['Ada\u200aL', space('200A', 4)],
    ['Ada\u2007L', space('2007', 4)],
    ['Ada\u205fL', space('205F', 4)],
    ['Ada\u00a0L', space('00A0', 4)],
    ['Ada\u202fL', space('202F', 4)],
    ['Ada\u1680L', space('1680', 4)],
    ['A' + '\u0301'.repeat(39), 'name must not stack more than 4 combining marks on one character (39 at character 1): they smear over the text around it'],
    ['Ann' + '\u0308\u0301\u0302\u0303\u0304', 'name must not stack more than 4 combining marks on one character (5 at character 3): they smear over the text around it']
  ]
  for (const [name, message] of cases) {
    const before = await storeOf(app).get(guid)
    for (const [method, url] of [['PATCH', `/challenger/${guid}`], ['POST', '/challenger'], ['PUT', `/challenger/${guid}`]] as const) {
      const res = await app.inject({ method, url, headers: json, payload: JSON.stringify({ name }) })
      t.equal(res.statusCode, 400, `${method} ${JSON.stringify(name)}`)
      t.same(errorMessages(res), [`Invalid request: ${message}`])
    }
    t.same(await storeOf(app).get(guid), before, 'nothing changed')
  }
  // A few marks on a letter are writing: Vietnamese takes two (decomposed), Thai and Devanagari a vowel and a tone.
  const fine = ['Nguye\u0302\u0303n', 'Tie\u0302\u0301ng Vie\u0323\u0302t', 'สวัสดี', 'क्षत्रिय', '山田\u3000太郎', 'A\u0301\u0302\u0303\u0304']
  for (const name of fine) {
    const res = await app.inject({ method: 'PATCH', url: `/challenger/${guid}`, headers: json, payload: JSON.stringify({ name }) })
    t.equal(res.statusCode, 200, name)
    t.equal((await storeOf(app).get(guid))?.name, name)
  }
  t.same(checkName('\u2028Ada\u00a0'), { name: 'Ada' }, 'at either end they are trimmed, as spaces are')
})
