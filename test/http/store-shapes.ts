// The store's two shapes on a request's path (issue 56): get, update and record answer at once or
// with a promise (Maybe), and a host's store may even throw where ours reject. Only the pipeline's
// steps tell them apart: every answer below must be the same whichever shape the store has.
import t from 'tap'
import type { JournalEntry } from '../../src/domain/journal/journal.js'
import { MemoryStore } from '../../src/domain/sessions/memory-store.js'
import { StoreUnavailableError, type Maybe, type Session, type SessionChange } from '../../src/domain/sessions/store.js'
import { build, newSession } from '../helper.js'

type Shape = 'at once' | 'later' | 'throws'

/** A memory store whose request-path methods answer in `shape` once `failing` says so; `gone`: writes find no session. */
class Shaped extends MemoryStore {
  shape: Shape = 'at once'
  failing = false
  gone = false

  #as<T> (value: () => Maybe<T>): Maybe<T> {
    if (this.failing && this.shape === 'throws') throw new StoreUnavailableError(new Error('the store threw'))
    if (this.failing) return Promise.reject(new StoreUnavailableError(new Error('the store is away')))
    return this.shape === 'later' ? Promise.resolve().then(value) : value()
  }

  override get (guid: string): Maybe<Session | undefined> {
    return this.#as(() => super.get(guid))
  }

  override update (guid: string, change: SessionChange): Maybe<boolean> {
    return this.#as(() => this.gone ? false : super.update(guid, change))
  }

  override record (guid: string, entry: JournalEntry, change?: SessionChange): Maybe<boolean> {
    return this.#as(() => this.gone && change !== undefined ? false : super.record(guid, entry, change))
  }
}

for (const shape of ['at once', 'later'] as const) {
  t.test(`a store that answers ${shape}: the same answers, journal and progress`, async t => {
    const store = new Shaped()
    store.shape = shape
    const app = await build(t, { store, creationRateLimit: 0 })
    const me = await newSession(app)
    const headers = { 'x-challenger': me.guid, 'x-auth-token': me.token, 'content-type': 'application/json' }
    t.equal((await app.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenger': me.guid } })).statusCode, 204)
    const note = await app.inject({ method: 'POST', url: '/secret/note', headers, payload: { note: 'shaped' } })
    t.equal(note.statusCode, 200)
    t.same(note.json(), { note: 'shaped' })
    const session = await app.inject({ method: 'GET', url: `/challenger/${me.guid}`, headers: { 'x-challenger': me.guid } })
    t.equal(session.json().secretNote, 'shaped', 'written')
    t.equal(session.json().challengeStatus['34'], true, 'and its challenge passed (34: POST /secret/note with X-AUTH-TOKEN)')
    const other = await app.inject({ method: 'GET', url: `/challenger/${(await newSession(app)).guid}` })
    t.equal(other.statusCode, 200, 'a session named only in the URL is looked up too')
    const journal = (await app.inject({ method: 'GET', url: `/challenger/${me.guid}/requests` })).json().requests as Array<{ method: string, path: string, status: number }>
    t.same(journal.slice(0, 3).map(entry => [entry.method, entry.path, entry.status]), [['GET', `/challenger/${me.guid}`, 200], ['POST', '/secret/note', 200], ['GET', '/heartbeat', 204]])
    const tooLong = await app.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenger': me.guid + 'x'.repeat(65) } })
    t.same([tooLong.statusCode, tooLong.headers['x-challenger']], [431, me.guid], 'an over-long X-CHALLENGER: its session found, 47 passed')
    t.equal((await app.inject({ method: 'GET', url: `/challenger/${me.guid}` })).json().challengeStatus['47'], true)
  })
}

for (const shape of ['later', 'throws'] as const) {
  t.test(`a store that fails (${shape === 'later' ? 'a rejected promise' : 'a throw'}): 503 where a session is needed, the heartbeat answers without it`, async t => {
    const store = new Shaped()
    store.shape = shape
    const app = await build(t, { store, creationRateLimit: 0 })
    const me = await newSession(app)
    store.failing = true
    t.equal((await app.inject({ method: 'GET', url: '/secret/note', headers: { 'x-challenger': me.guid, 'x-auth-token': me.token } })).statusCode, 503, 'the lookup')
    t.equal((await app.inject({ method: 'GET', url: `/challenger/${me.guid}` })).statusCode, 503, 'the lookup of the session in the URL')
    t.equal((await app.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenger': me.guid } })).statusCode, 204, 'the heartbeat: its session is optional')
    t.equal((await app.inject({ method: 'GET', url: '/nowhere', headers: { 'x-challenger': me.guid } })).statusCode, 404, 'and so is an unknown path\'s')
    const tooLong = await app.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenger': me.guid + 'x'.repeat(65) } })
    t.same([tooLong.statusCode, tooLong.headers['x-challenger']], [431, undefined], 'an over-long X-CHALLENGER is 431 all the same, without its session')
    // A session named in a header near X-CHALLENGER is looked up only to record the request there: its failure fails nothing.
    const near = await app.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenge': me.guid } })
    t.equal(near.statusCode, 204)
    t.equal(near.headers['x-hint'] !== undefined, true, 'with its hint')
  })

  t.test(`a store whose write fails (${shape === 'later' ? 'a rejected promise' : 'a throw'}): the change's request is 503 and passes nothing; an entry alone fails nothing`, async t => {
    const store = new Shaped()
    const app = await build(t, { store, creationRateLimit: 0 })
    const me = await newSession(app)
    // Looked up at once, written in the shape under test.
    const session = store.get(me.guid) as Session
    store.get = () => session
    store.shape = shape
    store.failing = true
    const first = await app.inject({ method: 'GET', url: '/heartbeat', headers: { 'x-challenger': me.guid } })
    t.equal(first.statusCode, 503, 'the heartbeat\'s challenge could not be written')
    t.equal((await app.inject({ method: 'GET', url: '/challenges', headers: { 'x-challenger': me.guid, 'x-challenges-page': '1' } })).statusCode, 200, 'a request with no change and no entry')
    t.equal((await app.inject({ method: 'OPTIONS', url: '/secret/note', headers: { 'x-challenger': me.guid } })).statusCode, 204, 'an entry alone: its failure fails nothing')
  })
}

t.test('a note whose session is gone when it is written: 401 with the error body, in the format asked for', async t => {
  const store = new Shaped()
  const app = await build(t, { store })
  const me = await newSession(app)
  store.gone = true
  const json = await app.inject({ method: 'POST', url: '/secret/note', headers: { 'x-challenger': me.guid, 'x-auth-token': me.token, 'content-type': 'application/json' }, payload: { note: 'x' } })
  t.equal(json.statusCode, 401)
  t.equal(json.headers['content-type'], 'application/json; charset=utf-8')
  t.same(json.json().errorMessages.length, 1)
  const xml = await app.inject({ method: 'POST', url: '/secret/note', headers: { 'x-challenger': me.guid, 'x-auth-token': me.token, 'content-type': 'application/json', accept: 'application/xml' }, payload: { note: 'x' } })
  t.equal(xml.statusCode, 401)
  t.equal(xml.headers['content-type'], 'application/xml; charset=utf-8')
  t.match(xml.body, /<errorMessages><errorMessage>[^<]+<\/errorMessage><\/errorMessages>$/)
  store.gone = false
  t.equal((store.get(me.guid) as Session).note, '', 'nothing written')
})
