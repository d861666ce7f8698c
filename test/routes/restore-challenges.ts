// The reference's 2026 challenges of this corner (issue 58): 43 GET /challenger/{guid} with the same
// X-CHALLENGER, 44 PUT RESTORE (200), 45 PUT (409) mismatch, 46 PUT CREATE (201) and 47 the 431 of an
// over-long X-CHALLENGER, each passed exactly when the reference's hooks pass it, at both bases.
import t from 'tap'
import { challenges } from '../../src/domain/challenges/catalogue.js'
import { BASES, baseName, build, errorMessages, newSession, passed, storeOf } from '../helper.js'

const json = { 'content-type': 'application/json' }
const OTHER = '11111111-2222-4333-8444-555555555555'

for (const base of BASES) {
  t.test(baseName(base), async t => {
    t.test('43: GET /challenger/{guid} with the same guid in X-CHALLENGER passes it, and the answer shows it passed', async t => {
      const app = await build(t)
      const me = await newSession(app, base)
      const head = await app.inject({ method: 'HEAD', url: `${base}/challenger/${me.guid}`, headers: { 'x-challenger': me.guid } })
      t.equal(head.statusCode, 200)
      t.notOk((await passed(app, me.guid)).includes(43), 'HEAD passes nothing')
      const bare = await app.inject({ method: 'GET', url: `${base}/challenger/${me.guid}` })
      t.equal(bare.statusCode, 200)
      t.equal(bare.headers['x-challenger'], me.guid, 'X-CHALLENGER is the URL\'s session, though the request sent none')
      t.equal(bare.json().challengeStatus['43'], false, 'without X-CHALLENGER: not passed')
      const own = await app.inject({ method: 'GET', url: `${base}/challenger/${me.guid}`, headers: { 'x-challenger': me.guid } })
      t.equal(own.json().challengeStatus['43'], true, 'passed, and the answer already says so (the reference passes it before answering)')
      t.same(await passed(app, me.guid), [1, 30, 43])
      const journal = (await app.inject({ method: 'GET', url: `${base}/challenger/${me.guid}/requests` })).json().requests
      t.same(journal[0].passed, [43])
      t.equal(journal[1].hint, 'Challenge 43 needs your session id in X-CHALLENGER too, the same as in the URL; this request had none')
    })

    t.test('43: GET of another session answers with that session in X-CHALLENGER and passes nothing', async t => {
      const app = await build(t)
      const me = await newSession(app, base)
      const other = await newSession(app, base)
      const res = await app.inject({ method: 'GET', url: `${base}/challenger/${other.guid}`, headers: { 'x-challenger': me.guid } })
      t.equal(res.statusCode, 200)
      t.equal(res.headers['x-challenger'], other.guid, 'the guid in the URL, whatever the request\'s header said')
      t.same(await passed(app, me.guid), [1, 30])
      t.same(await passed(app, other.guid), [1, 30])
      const journal = (await app.inject({ method: 'GET', url: `${base}/challenger/${me.guid}/requests` })).json().requests
      t.equal(journal[0].hint, `Challenge 43 needs GET ${base}/challenger/<your session id> with the same id in X-CHALLENGER; this URL named another session`)
      const unknown = await app.inject({ method: 'GET', url: `${base}/challenger/${OTHER}`, headers: { 'x-challenger': me.guid } })
      t.equal(unknown.statusCode, 404)
      t.equal(unknown.headers['x-challenger'], me.guid, 'a 404 echoes the request\'s header, as every answer does')
    })

    t.test('44: PUT of a live session\'s JSON is 200 and passes it; the answer is the JSON that was sent', async t => {
      const app = await build(t)
      const me = await newSession(app, base)
      const saved = (await app.inject({ method: 'GET', url: `${base}/challenger/${me.guid}`, headers: { 'x-challenger': me.guid } })).json()
      const put = await app.inject({ method: 'PUT', url: `${base}/challenger/${me.guid}`, headers: { ...json, 'x-challenger': me.guid }, payload: saved })
      t.equal(put.statusCode, 200)
      t.same(put.json(), saved, 'the answer is the restored JSON (44 shows as passed from the next read, as in the reference)')
      t.same(await passed(app, me.guid), [1, 30, 43, 44])
      const again = (await app.inject({ method: 'GET', url: `${base}/challenger/${me.guid}` })).json()
      t.equal(again.challengeStatus['44'], true)
      const journal = (await app.inject({ method: 'GET', url: `${base}/challenger/${me.guid}/requests` })).json().requests
      t.same(journal[1].passed, [44], 'the journal says which PUT passed it')
      // A PUT whose body says 44 is not passed passes it again, as the reference's hook does after restoring.
      await app.inject({ method: 'PUT', url: `${base}/challenger/${me.guid}`, headers: json, payload: saved })
      t.same(await passed(app, me.guid), [1, 30, 43, 44], 'without X-CHALLENGER too: the restored session is the URL\'s')
    })

    t.test('44 and 46: the progress page\'s own restore (X-Challenges-Page) passes nothing', async t => {
      const app = await build(t)
      const me = await newSession(app, base)
      const saved = (await app.inject({ method: 'GET', url: `${base}/challenger/${me.guid}` })).json()
      const put = await app.inject({ method: 'PUT', url: `${base}/challenger/${me.guid}`, headers: { ...json, 'x-challenges-page': '1' }, payload: saved })
      t.equal(put.statusCode, 200)
      t.same(await passed(app, me.guid), [1, 30])
      const made = await app.inject({ method: 'PUT', url: `${base}/challenger/${OTHER}`, headers: { ...json, 'x-challenges-page': '1' }, payload: {} })
      t.equal(made.statusCode, 201)
      t.same(await passed(app, OTHER), [])
    })

    t.test('45: a session\'s JSON sent to another guid is 409 with the reference\'s words, and passes it for the body\'s session', async t => {
      const app = await build(t)
      const me = await newSession(app, base)
      const saved = (await app.inject({ method: 'GET', url: `${base}/challenger/${me.guid}` })).json()
      const res = await app.inject({ method: 'PUT', url: `${base}/challenger/${OTHER}`, headers: { ...json, 'x-challenger': me.guid }, payload: saved })
      t.equal(res.statusCode, 409)
      t.match(errorMessages(res), [/^URL GUID does not match payload X-CHALLENGER: /])
      t.same(await passed(app, me.guid), [1, 30, 45])
      t.equal(await storeOf(app).get(OTHER), undefined, 'no session was made')
      const journal = (await app.inject({ method: 'GET', url: `${base}/challenger/${me.guid}/requests` })).json().requests
      t.same([journal[0].status, journal[0].passed], [409, [45]])

      // Without X-CHALLENGER, the body's session still passes it (the reference's 409 names it in X-CHALLENGER).
      const other = await newSession(app, base)
      const theirs = (await app.inject({ method: 'GET', url: `${base}/challenger/${other.guid}` })).json()
      t.equal((await app.inject({ method: 'PUT', url: `${base}/challenger/${OTHER}`, headers: json, payload: theirs })).statusCode, 409)
      t.same(await passed(app, other.guid), [1, 30, 45])

      // A body naming no live session passes nothing for anyone.
      const nobody = '22222222-3333-4444-8555-666666666666'
      const stray = await app.inject({ method: 'PUT', url: `${base}/challenger/${OTHER}`, headers: { ...json, 'x-challenger': me.guid }, payload: { xChallenger: nobody } })
      t.equal(stray.statusCode, 409)
      t.equal(await storeOf(app).get(nobody), undefined)
      const notAGuid = await app.inject({ method: 'PUT', url: `${base}/challenger/${OTHER}`, headers: json, payload: { xChallenger: 'not-a-uuid' } })
      t.match(errorMessages(notAGuid), [/^URL GUID does not match payload X-CHALLENGER: /], 'a body naming no UUID: the same 409')
      const mine = await newSession(app, base)
      const page = await app.inject({ method: 'PUT', url: `${base}/challenger/${OTHER}`, headers: { ...json, 'x-challenger': mine.guid, 'x-challenges-page': '1' }, payload: { xChallenger: mine.guid } })
      t.equal(page.statusCode, 409)
      t.same(await passed(app, mine.guid), [1, 30], 'the progress page\'s own request passes nothing')
    })

    t.test('44: the restored session is the URL\'s, whichever session X-CHALLENGER names; the journal that keeps the PUT is X-CHALLENGER\'s', async t => {
      const app = await build(t)
      const me = await newSession(app, base)
      const other = await newSession(app, base)
      const theirs = (await app.inject({ method: 'GET', url: `${base}/challenger/${other.guid}` })).json()
      const put = await app.inject({ method: 'PUT', url: `${base}/challenger/${other.guid}`, headers: { ...json, 'x-challenger': me.guid }, payload: theirs })
      t.equal(put.statusCode, 200)
      t.same(await passed(app, other.guid), [1, 30, 44], 'the URL\'s session passed it')
      t.same(await passed(app, me.guid), [1, 30])
      const journal = (await app.inject({ method: 'GET', url: `${base}/challenger/${me.guid}/requests` })).json().requests
      t.same([journal[0].method, journal[0].passed], ['PUT', []], 'kept in the sender\'s journal, which passed nothing')
    })

    t.test('46: a PUT to a guid no live session has is 201, passes it, and the new session\'s journal has the PUT', async t => {
      const app = await build(t)
      const res = await app.inject({ method: 'PUT', url: `${base}/challenger/${OTHER}`, headers: json, payload: { xChallenger: OTHER, challengeStatus: { 28: true } } })
      t.equal(res.statusCode, 201)
      t.equal(res.json().challengeStatus['46'], false, 'the answer is the session as the body made it')
      t.same(await passed(app, OTHER), [28, 46])
      const journal = (await app.inject({ method: 'GET', url: `${base}/challenger/${OTHER}/requests` })).json().requests
      t.same([journal[0].method, journal[0].status, journal[0].passed], ['PUT', 201, [46]])
      const replaced = await app.inject({ method: 'PUT', url: `${base}/challenger/${OTHER}`, headers: json, payload: { xChallenger: OTHER, challengeStatus: { 28: true, 44: true, 45: true } } })
      t.equal(replaced.statusCode, 200)
      t.same(await passed(app, OTHER), [28, 44, 45], 'a live session is replaced: 46 as the body says, 44 passed already')
      await app.inject({ method: 'PUT', url: `${base}/challenger/${OTHER}`, headers: json, payload: { xChallenger: OTHER, challengeStatus: { 28: true, 44: true, 45: true } } })
      const hints = (await app.inject({ method: 'GET', url: `${base}/challenger/${OTHER}/requests` })).json().requests
      t.equal(hints[0].hint, `Challenge 46 needs PUT ${base}/challenger/<a UUID no live session has>; this one named a live session, which was replaced (200), not created`)
    })

    t.test('47: an X-CHALLENGER over 100 characters is 431 with the reference\'s words; its first 36 name the session that passes it', async t => {
      const app = await build(t)
      const me = await newSession(app, base)
      const tooLong = me.guid + 'x'.repeat(65)
      const head = await app.inject({ method: 'HEAD', url: `${base}/heartbeat`, headers: { 'x-challenger': tooLong } })
      t.equal(head.statusCode, 431)
      t.same(await passed(app, me.guid), [1, 30], 'HEAD passes nothing')
      const res = await app.inject({ method: 'GET', url: `${base}/heartbeat`, headers: { 'x-challenger': tooLong, accept: 'application/json' } })
      t.equal(res.statusCode, 431)
      t.same(res.json(), { errorMessages: ['X-CHALLENGER header is too large, maximum allowed is 100 characters'] })
      t.equal(res.headers['x-challenger'], me.guid, 'the session it tracks, as the reference answers')
      t.same(await passed(app, me.guid), [1, 30, 47])
      const journal = (await app.inject({ method: 'GET', url: `${base}/challenger/${me.guid}/requests` })).json().requests
      t.same([journal[0].status, journal[0].passed], [431, [47]])
      t.equal(journal[1].hint, 'HEAD passes nothing: challenge 47 needs GET')
      const xml = await app.inject({ method: 'GET', url: `${base}/heartbeat`, headers: { 'x-challenger': tooLong, accept: 'application/xml' } })
      t.equal(xml.body, '<?xml version="1.0" encoding="UTF-8"?><errorMessages><errorMessage>X-CHALLENGER header is too large, maximum allowed is 100 characters</errorMessage></errorMessages>')
    })

    t.test('47: any route of the API passes it; a prefix that names no session, or a page, only refuses', async t => {
      const app = await build(t)
      const me = await newSession(app, base)
      const note = await app.inject({ method: 'POST', url: `${base}/secret/note`, headers: { 'x-challenger': me.guid.toUpperCase() + '-'.repeat(70), ...json }, payload: { note: 'not read' } })
      t.equal(note.statusCode, 431, 'on the note, before its body is read')
      t.same(await passed(app, me.guid), [1, 30, 47], 'a guid in capitals names the same session')
      t.equal((await storeOf(app).get(me.guid))?.note, '')
      const stranger = await app.inject({ method: 'GET', url: `${base}/heartbeat`, headers: { 'x-challenger': OTHER + 'x'.repeat(65) } })
      t.equal(stranger.statusCode, 431)
      t.equal(stranger.headers['x-challenger'], undefined, 'no session: nothing to name')
      const page = await app.inject({ method: 'GET', url: '/gui/challenges', headers: { 'x-challenger': me.guid + 'x'.repeat(65) } })
      t.equal(page.statusCode, 431, 'the pages refuse it too, without a session')
      t.equal(page.headers['x-challenger'], undefined)
    })

    t.test('the five are in the catalogue with the reference\'s 2026 names, in GET /challenges and its hints', async t => {
      const app = await build(t)
      const list = (await app.inject({ method: 'GET', url: `${base}/challenges?hints=true` })).json().challenges as Array<{ id: number, name: string, hint: string }>
      t.same(list.slice(-5).map(c => [c.id, c.name]), [
        [43, 'GET /api/challenger/guid (existing X-CHALLENGER)'],
        [44, 'PUT /api/challenger/guid RESTORE'],
        [45, 'PUT /api/challenger/guid (409) mismatch'],
        [46, 'PUT /api/challenger/guid CREATE'],
        [47, 'GET /api/heartbeat (431) X-CHALLENGER too long']
      ])
      t.equal(list.length, challenges.length)
      t.equal(list.at(-1)?.hint, `GET ${base}/heartbeat\nX-CHALLENGER: <your session id><then 65 or more characters, such as xxxxx…>`)
    })
  })
}
