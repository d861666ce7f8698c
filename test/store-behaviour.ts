// The registry's behaviour, the same for every store (in memory, Redis): one suite, two backends.
import { request, Agent } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Test } from 'tap'
import { createServer } from '../src/server.js'
import type { JournalEntry } from '../src/domain/journal/journal.js'
import type { SessionStore, SessionPage } from '../src/domain/sessions/store.js'
import { TOKEN_BITS } from '../src/domain/sessions/worth.js'

/** An HTTP request over `agent` (which names the source address): the status, the headers and the body, once the answer is read. */
async function send (agent: Agent, port: number, method: string, path: string, headers: Record<string, string> = {}, body = '') {
  return await new Promise<{ status: number, headers: Record<string, string | string[] | undefined>, body: string }>((resolve, reject) => {
    request({ host: '127.0.0.1', port, method, path, agent, headers }, res => {
      let text = ''
      res.setEncoding('utf8').on('data', chunk => { text += chunk })
      res.on('end', () => resolve({ status: res.statusCode as number, headers: res.headers, body: text }))
    }).on('error', reject).end(body)
  })
}

const BASIC = `Basic ${Buffer.from('admin:password').toString('base64')}`

/** A learner at work over HTTP: a session, its token, and a note written with it. */
async function learnerAtWork (agent: Agent, port: number, note: string): Promise<{ guid: string, token: string }> {
  const guid = (await send(agent, port, 'POST', '/challenger')).headers['x-challenger'] as string
  const token = (await send(agent, port, 'POST', '/secret/token', { 'x-challenger': guid, authorization: BASIC })).headers['x-auth-token'] as string
  await send(agent, port, 'POST', '/secret/note', { 'x-challenger': guid, 'x-auth-token': token, 'content-type': 'application/json' }, JSON.stringify({ note }))
  return { guid, token }
}

/** A learner's note as GET /secret/note answers it: its status and note. */
async function noteOf (agent: Agent, port: number, learner: { guid: string, token: string }): Promise<[number, string]> {
  const answer = await send(agent, port, 'GET', '/secret/note', { 'x-challenger': learner.guid, 'x-auth-token': learner.token })
  return [answer.status, answer.status === 200 ? (JSON.parse(answer.body) as { note: string }).note : answer.body]
}

/** `make` returns a fresh, empty store with room for `maxSessions`; the suite closes it. */
export function storeBehaviour (t: Test, make: (maxSessions: number) => Promise<SessionStore>): void {
  t.test('create, get and update', async t => {
    const store = await make(100)
    t.teardown(() => store.close())
    const a = await store.create()
    const b = await store.create()
    t.not(a.guid, b.guid)
    t.not(a.token, b.token)
    t.same(await store.get(a.guid), { guid: a.guid, token: a.token, note: '', progress: 0 })
    t.equal(await store.get('11111111-2222-4333-8444-555555555555'), undefined)
    t.equal(await store.get('__proto__'), undefined)
    await store.update(a.guid, { note: 'hi <&> 😀' })
    await store.update('nobody', { note: 'x', passed: 1 })
    await store.update(a.guid, { passed: 0b101 })
    await store.update(a.guid, { passed: 0b110 })
    t.same(await store.get(a.guid), { guid: a.guid, token: a.token, note: 'hi <&> 😀', progress: 0b111 }, 'bits are added, the note kept')
    await store.update(a.guid, { note: 'second', passed: 0b1000 })
    t.same(await store.get(a.guid), { guid: a.guid, token: a.token, note: 'second', progress: 0b1111 }, 'the note and its bits in one write')
    await store.update(a.guid, { note: '' })
    t.same(await store.get(a.guid), { guid: a.guid, token: a.token, note: '', progress: 0b1111 }, 'an empty note is a note')
    t.same(await store.get(b.guid), { guid: b.guid, token: b.token, note: '', progress: 0 }, 'the other session is untouched')
    t.equal(await store.get('nobody'), undefined, 'a session that is gone stays gone')
    t.equal(store.available(), true)
  })

  t.test('record: a request\'s journal entry, with its change applied in the same step; false for a session that is gone', async t => {
    const store = await make(100)
    t.teardown(() => store.close())
    const a = await store.create()
    const entry: JournalEntry = { at: 5, method: 'POST', path: '/secret/note', status: 200, contentType: 'application/json', passed: 0b10, hint: -1, suggestion: null }
    t.equal(await store.record(a.guid, entry, { note: 'with its entry', passed: 0b10 }), true)
    t.same(await store.get(a.guid), { guid: a.guid, token: a.token, note: 'with its entry', progress: 0b10 }, 'the change is applied')
    t.match(await store.journal(a.guid), [{ path: '/secret/note', passed: 0b10 }], 'and the entry kept')
    t.equal(await store.record(a.guid, { ...entry, at: 6, passed: 0 }), true, 'an entry alone')
    t.equal((await store.journal(a.guid))?.length, 2)
    t.equal(await store.record('11111111-2222-4333-8444-555555555555', entry, { note: 'nowhere', passed: 1 }), false, 'no session: nothing written')
    t.equal(await store.get('11111111-2222-4333-8444-555555555555'), undefined)
  })

  t.test('create makes a session with its name and progress', async t => {
    const store = await make(10)
    t.teardown(() => store.close())
    const ada = await store.create('Ada', 0b1)
    t.same(await store.get(ada.guid), { guid: ada.guid, token: ada.token, note: '', progress: 0b1, name: 'Ada' })
    t.equal((await store.list(10)).total, 1)
  })

  t.test('restore replaces a live session and creates a missing one', async t => {
    const store = await make(100)
    t.teardown(() => store.close())
    const a = await store.create()
    t.equal(await store.restore({ guid: a.guid, token: 'f'.repeat(32), note: 'new', progress: 3 }), 'replaced')
    t.same(await store.get(a.guid), { guid: a.guid, token: 'f'.repeat(32), note: 'new', progress: 3 })
    const guid = '6a1f8e2c-4b3d-4e5f-9a7b-0c1d2e3f4a5b'
    t.equal(await store.restore({ guid, token: 'e'.repeat(32), note: '', progress: 1 }), 'created')
    t.same(await store.get(guid), { guid, token: 'e'.repeat(32), note: '', progress: 1 })
  })

  t.test('at capacity the least recently used makes room; a pinned session does not count', async t => {
    const store = await make(3)
    t.teardown(() => store.close())
    const pinned = { guid: '00000000-0000-4000-8000-000000000001', token: 'a'.repeat(32), note: '', progress: 0 }
    await store.restore(pinned, { pinned: true })
    const a = await store.create()
    const b = await store.create()
    const c = await store.create()
    await store.get(a.guid)
    const d = await store.create()
    t.equal(await store.get(b.guid), undefined, 'b was the least recently used')
    for (const s of [a, c, d]) t.ok(await store.get(s.guid))
    t.same(await store.get(pinned.guid), pinned, 'the pinned session stays')
    t.equal(await store.restore({ ...pinned, note: 'again' }), 'replaced')
    t.equal((await store.get(pinned.guid))?.note, 'again')
  })

  t.test('at capacity, sessions no request has named since they were made go first, oldest first; a learner at work stays', async t => {
    const store = await make(4)
    t.teardown(() => store.close())
    // The board's list is no activity: it shows what is live without changing it.
    const live = async (): Promise<string[]> => (await store.list(10)).sessions.map(s => s.guid)
    const learner = await store.create()
    t.ok(await store.get(learner.guid))
    await store.update(learner.guid, { note: 'mine' })
    const made: string[] = []
    for (let i = 0; i < 12; i++) made.push((await store.create()).guid)
    const [nine, ten, eleven] = made.slice(-3) as [string, string, string]
    t.same(await live(), [eleven, ten, nine, learner.guid], 'the learner, and the three made last')
    t.equal((await store.get(learner.guid))?.note, 'mine')
    // Every session used: the least recently active not at work makes room; the learner, used longest ago, stays.
    for (const guid of [nine, ten, eleven]) await store.get(guid)
    const next = await store.create()
    t.same(await live(), [next.guid, eleven, ten, learner.guid], 'nine, named and nothing more, made room')
    // Made again by a restore, a session is unused; restored while live, it was named, so used.
    t.equal(await store.restore({ guid: nine, token: learner.token, note: 'back', progress: 0 }), 'created')
    t.same(await live(), [nine, eleven, ten, learner.guid], 'the unused one made room')
    t.equal(await store.restore({ guid: ten, token: learner.token, note: '', progress: 0 }), 'replaced')
    const last = await store.create()
    t.same(await live(), [last.guid, ten, eleven, learner.guid], 'nine, made again by the restore and unused since, made room')
  })

  t.test('at capacity, used sessions not at work make room, least recently active first; a session at work never does, and a new one is refused', async t => {
    const store = await make(4)
    t.teardown(() => store.close())
    const live = async (): Promise<string[]> => (await store.list(10)).sessions.map(s => s.guid)
    const pinned = { guid: '00000000-0000-4000-8000-000000000001', token: 'a'.repeat(32), note: '', progress: 0 }
    await store.restore(pinned, { pinned: true })
    // Made (challenge bit 1) and named, then: a note; the token issued; two more challenges; one more (a heartbeat).
    const made = async (change: { note?: string, passed?: number }): Promise<string> => {
      const session = await store.create(undefined, 1)
      await store.get(session.guid)
      await store.update(session.guid, change)
      return session.guid
    }
    const noted = await made({ note: 'mine' })
    const token = await made({ passed: TOKEN_BITS & -TOKEN_BITS })
    const three = await made({ passed: 0b110 })
    const named = await made({ passed: 0b100000 })
    const next = await store.create()
    t.same(await live(), [next.guid, three, token, noted], 'the one with two challenges, named, made room')
    const after = await store.create()
    t.same(await live(), [after.guid, three, token, noted], 'the unused one made room')
    await store.get(after.guid)
    const newest = await store.create()
    t.same(await live(), [newest.guid, three, token, noted], 'the used one not at work made room')
    t.equal(await store.get(named), undefined)
    await store.update(newest.guid, { note: 'at work now' })
    await store.get(newest.guid)
    // Every session at work: none makes room, and nothing is written.
    const gone = '6a1f8e2c-4b3d-4e5f-9a7b-0c1d2e3f4a5b'
    await t.rejects(store.create(), { name: 'SessionsFullError', code: 'APICH_SESSIONS_FULL', statusCode: 503 })
    await t.rejects(store.restore({ guid: gone, token: 'e'.repeat(32), note: 'x', progress: 1 }), { name: 'SessionsFullError', statusCode: 503 })
    t.equal(await store.get(gone), undefined, 'the refused restore made nothing')
    t.same(await live(), [newest.guid, three, token, noted], 'every session at work is still there')
    t.equal((await store.get(noted))?.note, 'mine')
    t.same(await store.get(pinned.guid), pinned, 'the pinned session is no part of it')
    // A live session restored is no new one; restored with nothing at work, it is the next to make room.
    t.equal(await store.restore({ guid: noted, token: 'f'.repeat(32), note: 'again', progress: 1 }), 'replaced')
    t.equal(await store.restore({ guid: three, token: 'f'.repeat(32), note: '', progress: 1 }), 'replaced')
    const last = await store.create()
    t.same(await live(), [last.guid, noted, newest.guid, token], 'three, restored to one challenge and no note, made room')
  })

  t.test('at capacity 100, 10 learners with a token and a note all still work after 2 addresses made and named 110 sessions (issue 50)', async t => {
    const store = await make(100)
    const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { store } })
    t.teardown(() => app.close())
    await app.listen({ port: 0, host: '127.0.0.1' })
    const port = (app.server.address() as AddressInfo).port
    const agent = new Agent({ keepAlive: true, localAddress: '127.0.0.1' })
    t.teardown(() => agent.destroy())
    const learners: Array<{ guid: string, token: string }> = []
    for (let i = 0; i < 10; i++) learners.push(await learnerAtWork(agent, port, `learner ${i}`))
    // The stranger's sessions: each made, then named once in a heartbeat, 55 from each of two addresses.
    const statuses = await Promise.all([2, 3].map(async host => {
      const stranger = new Agent({ keepAlive: true, localAddress: `127.0.0.${host}` })
      const seen: number[] = []
      for (let i = 0; i < 55; i++) {
        const made = await send(stranger, port, 'POST', '/challenger')
        seen.push(made.status, (await send(stranger, port, 'GET', '/heartbeat', { 'x-challenger': made.headers['x-challenger'] as string })).status)
      }
      stranger.destroy()
      return seen
    }))
    t.same(statuses.flat().filter(status => status !== 201 && status !== 204), [], 'the stranger\'s 110 sessions were made and named: each made room from the stranger\'s own')
    t.same(await Promise.all(learners.map(async learner => await noteOf(agent, port, learner))), learners.map((_, i) => [200, `learner ${i}`]), 'every learner still works')
    t.equal((await store.list(1)).total, 100)
    // A learner who comes now gets a session and works: the stranger's are still there to make room.
    const late = await learnerAtWork(agent, port, 'late')
    t.same(await noteOf(agent, port, late), [200, 'late'])
  })

  t.test('with every session at work, a new one is refused with 503 and the error body, and the learners keep working', async t => {
    const store = await make(12)
    const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { store } })
    t.teardown(() => app.close())
    await app.listen({ port: 0, host: '127.0.0.1' })
    const port = (app.server.address() as AddressInfo).port
    const agent = new Agent({ keepAlive: true, localAddress: '127.0.0.1' })
    t.teardown(() => agent.destroy())
    const learners: Array<{ guid: string, token: string }> = []
    for (let i = 0; i < 10; i++) learners.push(await learnerAtWork(agent, port, `learner ${i}`))
    // A stranger who makes each session one at work (its token issued): two fit.
    const stranger = new Agent({ keepAlive: true, localAddress: '127.0.0.2' })
    t.teardown(() => stranger.destroy())
    for (let i = 0; i < 2; i++) {
      const guid = (await send(stranger, port, 'POST', '/challenger')).headers['x-challenger'] as string
      t.equal((await send(stranger, port, 'POST', '/secret/token', { 'x-challenger': guid, authorization: BASIC })).status, 201)
    }
    const refused = await send(stranger, port, 'POST', '/challenger')
    t.equal(refused.status, 503)
    t.same(JSON.parse(refused.body), { errorMessages: ['The server holds as many sessions as it may, every one in use: try again in a few minutes, once one has ended'] })
    t.equal(refused.headers['x-challenger'], undefined, 'no session made')
    const put = await send(stranger, port, 'PUT', '/challenger/6a1f8e2c-4b3d-4e5f-9a7b-0c1d2e3f4a5b', { 'content-type': 'application/json' }, '{}')
    t.equal(put.status, 503, 'a restore that would make one too')
    t.same(await Promise.all(learners.map(async learner => await noteOf(agent, port, learner))), learners.map((_, i) => [200, `learner ${i}`]), 'every learner still works')
    t.equal((await store.list(1)).total, 12)
  })

  t.test('at capacity 300, a learner who wrote a note is still there after 5 addresses made 60 sessions each (issue 34)', async t => {
    const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { store: await make(300) } })
    t.teardown(() => app.close())
    await app.listen({ port: 0, host: '127.0.0.1' })
    const port = (app.server.address() as AddressInfo).port
    const learner = new Agent({ keepAlive: true, localAddress: '127.0.0.1' })
    t.teardown(() => learner.destroy())
    const guid = (await send(learner, port, 'POST', '/challenger')).headers['x-challenger'] as string
    const basic = `Basic ${Buffer.from('admin:password').toString('base64')}`
    const token = (await send(learner, port, 'POST', '/secret/token', { 'x-challenger': guid, authorization: basic })).headers['x-auth-token'] as string
    const auth = { 'x-challenger': guid, 'x-auth-token': token }
    t.equal((await send(learner, port, 'POST', '/secret/note', { ...auth, 'content-type': 'application/json' }, '{"note":"mine"}')).status, 200)
    const statuses = await Promise.all([2, 3, 4, 5, 6].map(async host => {
      const stranger = new Agent({ keepAlive: true, localAddress: `127.0.0.${host}` })
      const made: number[] = []
      for (let i = 0; i < 60; i++) made.push((await send(stranger, port, 'POST', '/challenger')).status)
      stranger.destroy()
      return made
    }))
    t.same(statuses.flat().filter(status => status !== 201), [], '300 sessions made')
    t.equal((await send(learner, port, 'GET', '/secret/note', auth)).status, 200, 'the learner\'s next request is answered')
  })

  t.test('a session that made room is remembered as ended (expiredRecently); one never made, or live, or only asked for, is not', async t => {
    const store = await make(2)
    t.teardown(() => store.close())
    const a = await store.create()
    const b = await store.create()
    await store.get(b.guid)
    const c = await store.create()
    t.equal(await store.get(a.guid), undefined, 'a, never used, made room')
    t.equal(await store.expiredRecently(a.guid), true, 'and is remembered')
    t.equal(await store.expiredRecently(b.guid), false, 'a live session has not ended')
    t.equal(await store.expiredRecently(c.guid), false)
    const stranger = '11111111-2222-4333-8444-555555555555'
    t.equal(await store.get(stranger), undefined)
    await store.update(stranger, { note: 'x' })
    await store.record(stranger, { at: 1, method: 'GET', path: '/heartbeat', status: 204, contentType: null, passed: 0, hint: -1, suggestion: null })
    t.equal(await store.expiredRecently(stranger), false, 'asking for a session that never was does not make it one that ended')
    t.equal(await store.expiredRecently('not a guid'), false)
    t.equal(await store.restore({ guid: a.guid, token: a.token, note: 'back', progress: 1 }), 'created', 'restored')
    t.equal((await store.get(a.guid))?.note, 'back')
  })

  t.test('countCreation counts per client in a window that its first count opens; with add 0 it only reads', async t => {
    const store = await make(10)
    t.teardown(() => store.close())
    const count = store.countCreation.bind(store)
    t.same(await count('admin:127.0.0.2', 60_000, 0), { count: 0, msLeft: 0 }, 'read: no window open')
    const first = await count('admin:127.0.0.2', 60_000)
    t.equal(first.count, 1)
    t.ok(first.msLeft > 59_000 && first.msLeft <= 60_000, `the window opened: ${first.msLeft} ms left`)
    t.equal((await count('admin:127.0.0.2', 60_000)).count, 2)
    t.equal((await count('127.0.0.2', 60_000)).count, 1, 'another key counts apart')
    const read = await count('admin:127.0.0.2', 60_000, 0)
    t.equal(read.count, 2, 'read, not added to')
    t.ok(read.msLeft > 0 && read.msLeft <= first.msLeft, 'in the same window')
    t.equal((await count('admin:127.0.0.2', 60_000, 0)).count, 2)
  })

  t.test('a record handed out is a copy', async t => {
    const store = await make(100)
    t.teardown(() => store.close())
    const a = await store.create()
    const seen = await store.get(a.guid)
    await store.update(a.guid, { note: 'later' })
    t.equal(seen?.note, '')
  })

  t.test('a hunt: made with its session, found once and only when hidden, kept or cleared by a restore, counted on the board', async t => {
    const store = await make(100)
    t.teardown(() => store.close())
    const hidden = ['note-write-201', 'heartbeat-200', 'any-password']
    const ada = await store.create('Ada', 1, { hidden, found: [] })
    const plain = await store.create()
    t.same(ada.hunt, { hidden, found: [] })
    t.same(await store.get(ada.guid), { guid: ada.guid, token: ada.token, note: '', progress: 1, name: 'Ada', hunt: { hidden, found: [] } })
    t.equal((await store.get(plain.guid))?.hunt, undefined, 'a plain session has none')
    t.equal(await store.update(ada.guid, { note: 'n', passed: 2, found: 'heartbeat-200' }), true)
    t.same(await store.get(ada.guid), { guid: ada.guid, token: ada.token, note: 'n', progress: 3, name: 'Ada', hunt: { hidden, found: ['heartbeat-200'] } },
      'found in the write that keeps the note and bits')
    for (const found of ['heartbeat-200', 'swap-401-403', 'heartbeat', 'heartbeat-200,any-password', '']) await store.update(ada.guid, { found })
    await store.update(plain.guid, { found: 'heartbeat-200' })
    t.same((await store.get(ada.guid))?.hunt, { hidden, found: ['heartbeat-200'] }, 'once, and only a defect the hunt hides')
    t.equal((await store.get(plain.guid))?.hunt, undefined, 'nothing to find in a plain session')
    await store.update(ada.guid, { found: 'any-password' })
    t.same((await store.get(ada.guid))?.hunt?.found, ['heartbeat-200', 'any-password'], 'in the order found')
    t.same((await store.setName(ada.guid, 'Ada L.'))?.hunt?.found, ['heartbeat-200', 'any-password'], 'a new name keeps it')

    const summaries = async (): Promise<Map<string, unknown>> => new Map((await store.list(10)).sessions.map(s => [s.guid, s.hunt]))
    t.same([...await summaries()].sort(), [[ada.guid, { hidden: 3, found: 2 }], [plain.guid, undefined]].sort(), 'the board counts a hunt\'s defects')
    t.notOk('hunt' in ((await store.list(10)).sessions.find(s => s.guid === plain.guid) as object), 'and a plain session has no hunt there')

    const session = await store.get(ada.guid) as NonNullable<Awaited<ReturnType<SessionStore['get']>>>
    t.equal(await store.restore({ ...session, hunt: { hidden, found: ['note-write-201'] } }), 'replaced')
    t.same((await store.get(ada.guid))?.hunt, { hidden, found: ['note-write-201'] }, 'a restore keeps the hunt it gives')
    t.equal(await store.restore({ guid: ada.guid, token: ada.token, note: 'n', progress: 3 }), 'replaced')
    t.equal((await store.get(ada.guid))?.hunt, undefined, 'a restore without one clears it')
    await store.update(ada.guid, { found: 'note-write-201' })
    t.equal((await store.get(ada.guid))?.hunt, undefined, 'and nothing is found after')
    t.same((await summaries()).get(ada.guid), undefined)
    const guid = '6a1f8e2c-4b3d-4e5f-9a7b-0c1d2e3f4a5b'
    t.equal(await store.restore({ guid, token: 'e'.repeat(32), note: '', progress: 1, hunt: { hidden: ['lost-write'], found: ['lost-write'] } }), 'created')
    t.same(await store.get(guid), { guid, token: 'e'.repeat(32), note: '', progress: 1, hunt: { hidden: ['lost-write'], found: ['lost-write'] } }, 'a restore that creates keeps it too')
    t.same((await summaries()).get(guid), { hidden: 1, found: 1 })
  })

  t.test('the journal keeps which defect changed an answer, and gives each entry a time of its own', async t => {
    const store = await make(10)
    t.teardown(() => store.close())
    const a = await store.create()
    const at = Date.now()
    const entry: JournalEntry = { at, method: 'POST', path: '/secret/note', status: 201, contentType: 'application/json', passed: 0, hint: -1, suggestion: null }
    await store.record(a.guid, { ...entry, defect: 'note-write-201' })
    await store.record(a.guid, { ...entry, status: 200 })
    await store.record(a.guid, { ...entry, at: at - 5, status: 403 })
    await store.record(a.guid, { ...entry, at: at + 10, status: 204, defect: 'heartbeat-200' })
    const kept = await store.journal(a.guid) ?? []
    t.same(kept.map(e => [e.at - at, e.status, e.defect]), [[10, 204, 'heartbeat-200'], [2, 403, undefined], [1, 200, undefined], [0, 201, 'note-write-201']],
      'newest first: an entry no later than the newest is a millisecond after it')
    t.notOk('defect' in (kept[1] as JournalEntry), 'an entry no defect changed has none')
  })

  // The class board (issue 17).
  /** Every page of the board, `limit` at a time; `between` runs after each page but the last. */
  const allPages = async (store: SessionStore, limit: number, between: (page: SessionPage) => Promise<void> = async () => {}): Promise<SessionPage[]> => {
    const list = store.list.bind(store)
    const pages = [await list(limit)]
    for (let page = pages[0] as SessionPage; page.next !== null; pages.push(page)) {
      await between(page)
      page = await list(limit, page.next)
    }
    return pages
  }
  const guidsOf = (pages: SessionPage[]): string[] => pages.flatMap(page => page.sessions.map(s => s.guid))

  t.test('names: given at creation, set, cleared, kept by a restore that gives one, and never activity', async t => {
    const store = await make(100)
    t.teardown(() => store.close())
    const ada = await store.create('Ada')
    t.equal(ada.name, 'Ada')
    t.equal((await store.get(ada.guid))?.name, 'Ada')
    const other = await store.create()
    t.equal((await store.get(other.guid))?.name, undefined)
    t.equal((await store.setName(other.guid, 'Grace 🚀 <b>'))?.name, 'Grace 🚀 <b>')
    t.equal((await store.get(other.guid))?.name, 'Grace 🚀 <b>')
    t.equal((await store.setName(other.guid, undefined))?.name, undefined, 'cleared')
    t.equal((await store.get(other.guid))?.name, undefined)
    t.equal(await store.setName('11111111-2222-4333-8444-555555555555', 'x'), undefined, 'a session that is gone')
    await store.restore({ guid: ada.guid, token: ada.token, note: 'n', progress: 1, name: 'Ada L.' })
    t.equal((await store.get(ada.guid))?.name, 'Ada L.', 'restored with its name')
    await store.restore({ guid: ada.guid, token: ada.token, note: 'n', progress: 1 })
    t.equal((await store.get(ada.guid))?.name, undefined, 'a restore without one has none')
    // Naming is not activity: the board's order stays.
    const before = guidsOf(await allPages(store, 10))
    await store.setName(other.guid, 'Grace')
    t.same(guidsOf(await allPages(store, 10)), before)
  })

  t.test('the board lists sessions most recently active first, with names, times and progress', async t => {
    const store = await make(100)
    t.teardown(() => store.close())
    const start = Date.now()
    const made: Array<{ guid: string }> = []
    for (let i = 0; i < 5; i++) made.push(await store.create(i % 2 === 0 ? `learner ${i}` : undefined))
    await store.update(made[1]?.guid as string, { passed: 0b101 })
    await store.get(made[1]?.guid as string)
    const [page] = await allPages(store, 10)
    t.equal(page?.total, 5)
    t.equal(page?.next, null, 'one page holds them all')
    t.same(page?.sessions.map(s => s.guid), [1, 4, 3, 2, 0].map(i => made[i]?.guid), 'newest activity first')
    t.same(page?.sessions.map(s => s.name), [undefined, 'learner 4', undefined, 'learner 2', 'learner 0'])
    t.same(page?.sessions.map(s => s.progress), [0b101, 0, 0, 0, 0])
    for (const s of page?.sessions ?? []) {
      t.ok(s.createdAt >= start - 1000 && s.createdAt <= Date.now() + 1000, 'createdAt is now, in ms since 1970')
      t.equal(s.createdAt % 1000, 0, 'a whole second, as it is kept')
      t.ok(s.lastSeen >= s.createdAt - 1 && s.lastSeen <= Date.now() + 1000, 'lastSeen is at or after createdAt')
    }
    const first = page?.sessions[0]
    t.ok((first?.lastSeen as number) >= (page?.sessions[4]?.lastSeen as number), 'the order is the order of lastSeen')
  })

  t.test('paging: every session once, in order, even when sessions move between pages', async t => {
    const store = await make(1000)
    t.teardown(() => store.close())
    const made: string[] = []
    for (let i = 0; i < 60; i++) made.push((await store.create()).guid)
    // Untouched: 60 sessions, 7 a page, newest first, each once.
    const still = await allPages(store, 7)
    t.equal(still.length, 9)
    t.same(guidsOf(still), [...made].reverse())
    t.ok(still.slice(0, -1).every(page => page.sessions.length === 7 && page.total === 60))
    // Now, between pages, the last session of the page just read is touched (the cursor's own
    // session moves to the front), and so is one not yet listed.
    const touched = new Set<string>()
    const moving = await allPages(store, 7, async page => {
      const last = page.sessions[page.sessions.length - 1]?.guid as string
      const ahead = made[made.length - 1 - touched.size * 3 - 30]
      for (const guid of [last, ahead]) {
        if (guid === undefined) continue
        await store.get(guid)
        touched.add(guid)
      }
    })
    const seen = guidsOf(moving)
    t.equal(new Set(seen).size, seen.length, 'no session twice')
    const untouched = made.filter(guid => !touched.has(guid))
    t.same(seen.filter(guid => untouched.includes(guid)), [...untouched].reverse(), 'every untouched session, once, in order')
  })

  t.test('a cursor the store did not make is refused', async t => {
    const store = await make(10)
    t.teardown(() => store.close())
    await store.create()
    for (const cursor of ['', 'not a cursor', 'bTk5OTk5', Buffer.from('r1:x').toString('base64url'), Buffer.from('m0').toString('base64url'), 'x'.repeat(300)]) {
      await t.rejects(store.list(10, cursor) as Promise<SessionPage>, { name: 'BadCursorError', statusCode: 400 }, JSON.stringify(cursor))
    }
  })

  t.test('the summary counts live sessions, the active ones, and passes by bit', async t => {
    const store = await make(100)
    t.teardown(() => store.close())
    t.same(await store.summary(60_000), { live: 0, active: 0, passedBy: new Array(32).fill(0) })
    const a = await store.create()
    const b = await store.create()
    await store.create()
    await store.update(a.guid, { passed: 0b11 })
    await store.update(b.guid, { note: 'x', passed: 0b10 })
    await store.update(b.guid, { passed: 2 ** 31 })
    const summary = await store.summary(60_000)
    t.equal(summary?.live, 3)
    t.equal(summary?.active, 3)
    t.same(summary?.passedBy.slice(0, 3), [1, 2, 0])
    t.equal(summary?.passedBy[31], 1, 'the top bit too')
    t.equal(summary?.passedBy.reduce((sum, n) => sum + n, 0), 4)
  })
}
