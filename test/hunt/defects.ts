// Each deliberate defect changes one answer, and only with it active: the same request on the
// correct service (the first build) and on the service with the defect (the second) differ as the
// catalogue says, and nowhere else that the probe looks.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import t from 'tap'
import { checkDefectIds, defects, drawHunt, HUNT_SIZE } from '../../src/domain/defects/catalogue.js'
import { basic, build, newSession } from '../helper.js'

interface Probe {
  /** What the test does on a service, and the facts of the answer it compares. */
  run: (app: FastifyInstance) => Promise<unknown>
}

// One service per defect (and one correct), built once and shared by the tests below: each probe
// makes sessions of its own, so that they do not meet. Built for this file's process; closed at its end.
const services = new Map<string, Promise<FastifyInstance>>()
function service (id?: string): Promise<FastifyInstance> {
  const key = id ?? ''
  let app = services.get(key)
  if (app === undefined) {
    app = build(t, { creationRateLimit: 0, ...(id === undefined ? {} : { defects: [id] }) })
    services.set(key, app)
  }
  return app
}

const facts = (res: LightMyRequestResponse, ...headers: string[]): unknown => ({
  status: res.statusCode,
  body: res.body,
  ...Object.fromEntries(headers.map(name => [name, res.headers[name]]))
})

// The ids GET /challenges lists, as numbers, with a new session or without one.
async function listedIds (app: FastifyInstance, withSession: boolean): Promise<number[]> {
  const headers = withSession ? { 'x-challenger': (await newSession(app)).guid } : {}
  const { challenges } = (await app.inject({ url: '/challenges', headers })).json() as { challenges: Array<{ id: unknown }> }
  return challenges.map(item => Number(item.id))
}

const probes: Record<string, Probe> = {
  'swap-401-403': {
    async run (app) {
      const { guid } = await newSession(app)
      const none = await app.inject({ url: '/secret/note', headers: { 'x-challenger': guid } })
      const wrong = await app.inject({ url: '/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': 'bob' } })
      return [none.statusCode, wrong.statusCode]
    }
  },
  'foreign-token': {
    async run (app) {
      const mine = await newSession(app)
      const theirs = await newSession(app)
      const res = await app.inject({ url: '/secret/note', headers: { 'x-challenger': mine.guid, 'x-auth-token': theirs.token } })
      return res.statusCode
    }
  },
  'note-cut-at-99': {
    async run (app) {
      const { guid, token } = await newSession(app)
      const written = await app.inject({ method: 'POST', url: '/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token }, payload: { note: 'x'.repeat(150) } })
      const read = await app.inject({ url: '/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token } })
      return [written.json().note.length, read.json().note.length]
    }
  },
  'note-write-201': {
    async run (app) {
      const { guid, token } = await newSession(app)
      const res = await app.inject({ method: 'POST', url: '/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token }, payload: { note: 'hi' } })
      return facts(res)
    }
  },
  'no-challenger-echo': {
    async run (app) {
      const { guid } = await newSession(app)
      const res = await app.inject({ url: '/challenges', headers: { 'x-challenger': guid } })
      return { status: res.statusCode, echoed: res.headers['x-challenger'] === guid }
    }
  },
  'bearer-loses': {
    async run (app) {
      const { guid, token } = await newSession(app)
      const res = await app.inject({ url: '/secret/note', headers: { 'x-challenger': guid, authorization: `Bearer ${token}`, 'x-auth-token': 'bob' } })
      return res.statusCode
    }
  },
  'patch-heartbeat-405': {
    async run (app) {
      return facts(await app.inject({ method: 'PATCH', url: '/heartbeat' }))
    }
  },
  'override-ignored': {
    async run (app) {
      const res = await app.inject({ method: 'POST', url: '/heartbeat', headers: { 'x-http-method-override': 'PATCH' } })
      return res.statusCode
    }
  },
  'lost-write': {
    async run (app) {
      const { guid, token } = await newSession(app)
      const headers = { 'x-challenger': guid, 'x-auth-token': token }
      await app.inject({ method: 'POST', url: '/secret/note', headers, payload: { note: 'first' } })
      const written = await app.inject({ method: 'POST', url: '/secret/note', headers, payload: { note: 'second' } })
      const read = await app.inject({ url: '/secret/note', headers })
      return [written.json().note, read.json().note]
    }
  },
  'any-password': {
    async run (app) {
      const { guid } = await newSession(app)
      const res = await app.inject({ method: 'POST', url: '/secret/token', headers: { 'x-challenger': guid, authorization: basic('admin', 'wrong') } })
      return res.statusCode
    }
  },
  'no-www-authenticate': {
    async run (app) {
      const { guid } = await newSession(app)
      const res = await app.inject({ method: 'POST', url: '/secret/token', headers: { 'x-challenger': guid, authorization: basic('admin', 'wrong') } })
      return facts(res, 'www-authenticate')
    }
  },
  'json-as-text': {
    async run (app) {
      return facts(await app.inject({ url: '/challenges' }), 'content-type')
    }
  },
  'created-200': {
    async run (app) {
      return (await app.inject({ method: 'POST', url: '/challenger' })).statusCode
    }
  },
  'xml-ignored': {
    async run (app) {
      const { guid, token } = await newSession(app)
      const res = await app.inject({ url: '/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token, accept: 'application/xml' } })
      return res.headers['content-type']
    }
  },
  'heartbeat-200': {
    async run (app) {
      return facts(await app.inject({ url: '/heartbeat' }))
    }
  },
  'trace-heartbeat-500': {
    async run (app) {
      const traced = await app.inject({ method: 'TRACE', url: '/heartbeat' })
      const overridden = await app.inject({ method: 'POST', url: '/heartbeat', headers: { 'x-http-method-override': 'TRACE' } })
      return [traced.statusCode, overridden.statusCode]
    }
  },
  'delete-heartbeat-204': {
    async run (app) {
      return (await app.inject({ method: 'DELETE', url: '/heartbeat' })).statusCode
    }
  },
  'login-challenge-bearer': {
    async run (app) {
      const { guid } = await newSession(app)
      const res = await app.inject({ method: 'POST', url: '/secret/token', headers: { 'x-challenger': guid, authorization: basic('admin', 'nope') } })
      return [res.statusCode, res.headers['www-authenticate']]
    }
  },
  'json-no-charset': {
    async run (app) {
      return (await app.inject({ url: '/challenges' })).headers['content-type']
    }
  },
  'xml-charset-latin1': {
    async run (app) {
      const { guid, token } = await newSession(app)
      const res = await app.inject({ url: '/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token, accept: 'text/xml' } })
      return [res.headers['content-type'], res.body]
    }
  },
  'error-no-content-type': {
    async run (app) {
      const { guid } = await newSession(app)
      const res = await app.inject({ url: '/secret/note', headers: { 'x-challenger': guid } })
      return [res.statusCode, res.headers['content-type']]
    }
  },
  'location-no-session': {
    async run (app) {
      const res = await app.inject({ method: 'POST', url: '/challenger' })
      return String(res.headers.location).replace(String(res.headers['x-challenger']), '<guid>')
    }
  },
  'empty-note-dropped': {
    async run (app) {
      const { guid, token } = await newSession(app)
      return (await app.inject({ url: '/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token } })).body
    }
  },
  'challenges-extra-property': {
    async run (app) {
      return Object.keys((await app.inject({ url: '/challenges' })).json().challenges[0])
    }
  },
  'challenge-id-string': {
    async run (app) {
      return typeof (await app.inject({ url: '/challenges' })).json().challenges[0].id
    }
  },
  'passed-listed-false': {
    async run (app) {
      const { guid } = await newSession(app)
      const listed = (await app.inject({ url: '/challenges', headers: { 'x-challenger': guid } })).json().challenges as Array<{ status: boolean }>
      return listed.filter(c => c.status).length
    }
  },
  'last-challenge-missing': {
    async run (app) {
      return Number((await listedIds(app, true)).at(-1))
    }
  },
  'challenges-out-of-order': {
    async run (app) {
      const ids = await listedIds(app, true)
      return ids.every((id, i) => i === 0 || id >= (ids[i - 1] as number))
    }
  },
  'challenges-empty-anonymous': {
    async run (app) {
      return (await listedIds(app, false)).length > 0
    }
  },
  'passed-listed-twice': {
    async run (app) {
      const ids = await listedIds(app, true)
      return ids.length - new Set(ids).size
    }
  },
  'error-messages-null': {
    async run (app) {
      const res = await app.inject({ url: '/secret/note' })
      return [res.statusCode, res.json().errorMessages?.length ?? null]
    }
  },
  'note-outside-ascii': {
    async run (app) {
      const { guid, token } = await newSession(app)
      const headers = { 'x-challenger': guid, 'x-auth-token': token }
      const written = await app.inject({ method: 'POST', url: '/secret/note', headers, payload: { note: 'café ☕' } })
      const read = await app.inject({ url: '/secret/note', headers })
      const xml = await app.inject({ url: '/secret/note', headers: { ...headers, accept: 'application/xml' } })
      return [written.json().note, read.json().note, xml.body.includes('café ☕')]
    }
  },
  'token-any-case': {
    async run (app) {
      const { guid, token } = await newSession(app)
      const x = await app.inject({ url: '/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token.toUpperCase() } })
      const bearer = await app.inject({ url: '/secret/note', headers: { 'x-challenger': guid, authorization: `Bearer ${token.toUpperCase()}` } })
      return [x.statusCode, bearer.statusCode]
    }
  },
  'token-prefix': {
    async run (app) {
      const { guid, token } = await newSession(app)
      const res = await app.inject({ url: '/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token.slice(0, 8) } })
      return res.statusCode
    }
  },
  'shared-token': {
    async run (app) {
      const mine = await newSession(app)
      const theirs = await newSession(app)
      const res = await app.inject({ url: '/secret/note', headers: { 'x-challenger': mine.guid, 'x-auth-token': theirs.token } })
      return [mine.token === theirs.token, res.statusCode]
    }
  },
  'token-leaked': {
    async run (app) {
      const { guid, token } = await newSession(app)
      const none = await app.inject({ url: '/secret/note', headers: { 'x-challenger': guid } })
      const wrong = await app.inject({ method: 'POST', url: '/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': 'bob' }, payload: { note: 'x' } })
      return [none.headers['x-auth-token'] === token, wrong.headers['x-auth-token'] === token]
    }
  },
  'unknown-session-live': {
    async run (app) {
      const res = await app.inject({ method: 'POST', url: '/challenger', headers: { 'x-challenger': '0b5e55ed-0000-4000-8000-000000000000' } })
      return [res.statusCode, res.body === '']
    }
  },
  'session-echo-caller': {
    async run (app) {
      const mine = await newSession(app)
      const theirs = await newSession(app)
      const res = await app.inject({ url: `/challenger/${theirs.guid}`, headers: { 'x-challenger': mine.guid } })
      return [res.statusCode, res.headers['x-challenger'] === theirs.guid ? 'url' : 'caller']
    }
  },
  'note-answered-at-101': {
    async run (app) {
      const { guid, token } = await newSession(app)
      const headers = { 'x-challenger': guid, 'x-auth-token': token }
      const written = await app.inject({ method: 'POST', url: '/secret/note', headers, payload: { note: 'x'.repeat(101) } })
      const read = await app.inject({ url: '/secret/note', headers })
      return [written.json().note.length, read.json().note.length]
    }
  },
  'stale-read': {
    async run (app) {
      const { guid, token } = await newSession(app)
      const headers = { 'x-challenger': guid, 'x-auth-token': token }
      const reads: string[] = []
      for (const note of ['first', 'second']) {
        await app.inject({ method: 'POST', url: '/secret/note', headers, payload: { note } })
        reads.push((await app.inject({ url: '/secret/note', headers })).json().note)
      }
      reads.push((await app.inject({ url: '/secret/note', headers: { ...headers, accept: 'application/xml' } })).body)
      return reads
    }
  },
  'note-trimmed': {
    async run (app) {
      const { guid, token } = await newSession(app)
      const headers = { 'x-challenger': guid, 'x-auth-token': token }
      await app.inject({ method: 'POST', url: '/secret/note', headers, payload: { note: '  hi\n' } })
      return (await app.inject({ url: '/secret/note', headers })).json().note
    }
  },
  'not-acceptable-ignored': {
    async run (app) {
      const { guid, token } = await newSession(app)
      return (await app.inject({ url: '/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token, accept: 'image/png' } })).statusCode
    }
  },
  'content-type-unchecked': {
    async run (app) {
      const { guid, token } = await newSession(app)
      const res = await app.inject({ method: 'POST', url: '/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token, 'content-type': 'text/plain' }, payload: '{"note":"plain"}' })
      return res.statusCode
    }
  },
  'xml-body-refused': {
    async run (app) {
      const { guid, token } = await newSession(app)
      const res = await app.inject({ method: 'POST', url: '/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token, 'content-type': 'application/xml' }, payload: '<secretnote><note>in xml</note></secretnote>' })
      return res.statusCode
    }
  }
}

const expected: Record<string, [correct: unknown, defective: unknown]> = {
  'swap-401-403': [[401, 403], [403, 401]],
  'foreign-token': [403, 200],
  'note-cut-at-99': [[100, 100], [99, 99]],
  'note-write-201': [{ status: 200, body: '{"note":"hi"}' }, { status: 201, body: '{"note":"hi"}' }],
  'bearer-loses': [200, 403],
  'override-ignored': [500, 405],
  'lost-write': [['second', 'second'], ['second', '']],
  'any-password': [401, 201],
  'created-200': [201, 200],
  'xml-ignored': ['application/xml; charset=utf-8', 'application/json; charset=utf-8'],
  'heartbeat-200': [{ status: 204, body: '' }, { status: 200, body: '{"alive":true}' }],
  'trace-heartbeat-500': [[501, 501], [500, 500]],
  'delete-heartbeat-204': [405, 204],
  'login-challenge-bearer': [[401, 'Basic realm="User Visible Realm"'], [401, 'Bearer']],
  'json-no-charset': ['application/json; charset=utf-8', 'application/json'],
  'xml-charset-latin1': [
    ['text/xml; charset=utf-8', '<?xml version="1.0" encoding="UTF-8"?><secretnote><note/></secretnote>'],
    ['text/xml; charset=iso-8859-1', '<?xml version="1.0" encoding="UTF-8"?><secretnote><note/></secretnote>']
  ],
  'error-no-content-type': [[401, 'application/json; charset=utf-8'], [401, undefined]],
  'location-no-session': ['/gui/challenges/<guid>', '/gui/challenges'],
  'empty-note-dropped': ['{"note":""}', '{}'],
  'challenges-extra-property': [['id', 'name', 'description', 'status'], ['id', 'name', 'description', 'status', 'done']],
  'challenge-id-string': ['number', 'string'],
  'passed-listed-false': [3, 0],
  'last-challenge-missing': [47, 46],
  'challenges-out-of-order': [true, false],
  'challenges-empty-anonymous': [true, false],
  'passed-listed-twice': [0, 3],
  'error-messages-null': [[401, 1], [401, null]],
  'note-outside-ascii': [['café ☕', 'café ☕', true], ['caf? ?', 'caf? ?', true]],
  'token-any-case': [[403, 403], [200, 200]],
  'token-prefix': [403, 200],
  'shared-token': [[false, 403], [true, 200]],
  'token-leaked': [[false, false], [true, true]],
  'unknown-session-live': [[404, false], [200, true]],
  'session-echo-caller': [[200, 'url'], [200, 'caller']],
  'note-answered-at-101': [[100, 100], [101, 100]],
  'stale-read': [
    ['first', 'second', '<?xml version="1.0" encoding="UTF-8"?><secretnote><note>second</note></secretnote>'],
    ['', 'first', '<?xml version="1.0" encoding="UTF-8"?><secretnote><note>first</note></secretnote>']
  ],
  'note-trimmed': ['  hi\n', 'hi'],
  'not-acceptable-ignored': [406, 200],
  'content-type-unchecked': [415, 200],
  'xml-body-refused': [200, 415]
}

t.test('the catalogue: at least 30 defects, each with its words, its family and a probe here', async t => {
  t.ok(defects.length >= 30, `${defects.length} defects`)
  t.same(new Set(defects.map(d => d.id)).size, defects.length, 'the ids are distinct')
  for (const defect of defects) {
    t.match(defect.id, /^[a-z0-9]+(-[a-z0-9]+)*$/, `${defect.id}: a plain id`)
    for (const field of ['name', 'breaks', 'check', 'why', 'endpoint', 'untried'] as const) t.ok(defect[field].length > 10, `${defect.id} says its ${field}`)
    t.ok(['status', 'headers', 'body', 'auth', 'sessions', 'state', 'negotiation'].includes(defect.family), `${defect.id}: a family`)
    t.ok(['low', 'medium', 'high'].includes(defect.severity), `${defect.id}: a severity`)
    if (defect.source !== undefined) t.match(defect.source, /^(HTTPMutator: .+|OWASP API[1-9]0?:2023 .+)$/, `${defect.id}: a published source`)
    t.ok(probes[defect.id] !== undefined, `${defect.id} has a probe`)
  }
  // Every family the issue names has defects of its own, and a catalogue of 30 or more.
  const families = new Map<string, number>()
  for (const defect of defects) families.set(defect.family, (families.get(defect.family) ?? 0) + 1)
  t.same([...families.keys()].sort(), ['auth', 'body', 'headers', 'negotiation', 'sessions', 'state', 'status'])
  t.ok([...families.values()].every(count => count >= 2), 'at least two defects in each family')
  t.equal(checkDefectIds(['nope']), `unknown defect "nope" (the defects are ${defects.map(d => d.id).join(', ')})`)
  t.equal(checkDefectIds(defects.map(d => d.id)), undefined)
})

t.test('a hunt draws distinct defects that a session can meet', async t => {
  const drawn = drawHunt()
  t.equal(drawn.length, HUNT_SIZE)
  t.equal(new Set(drawn).size, HUNT_SIZE)
  t.ok(drawn.every(id => defects.find(d => d.id === id)?.hunt === true))
  // With a fixed draw, the same defects every time.
  const always0 = (): number => 0
  t.same(drawHunt(always0), drawHunt(always0))
})

for (const defect of defects) {
  t.test(`${defect.id}: ${defect.name}`, async t => {
    const probe = probes[defect.id] as Probe
    const correct = await probe.run(await service())
    const defective = await probe.run(await service(defect.id))
    t.notSame(defective, correct, 'the answer differs with the defect')
    const known = expected[defect.id]
    if (known !== undefined) t.same([correct, defective], known)
  })
}

t.test('the specific differences of the header defects', async t => {
  const correct = await service()
  t.same(await probes['no-challenger-echo']?.run(correct), { status: 200, echoed: true })
  t.same(await probes['no-challenger-echo']?.run(await service('no-challenger-echo')), { status: 200, echoed: false })
  t.equal((await probes['no-www-authenticate']?.run(correct) as Record<string, unknown>)['www-authenticate'], 'Basic realm="User Visible Realm"')
  const missing = await probes['no-www-authenticate']?.run(await service('no-www-authenticate')) as Record<string, unknown>
  t.same([missing.status, missing['www-authenticate']], [401, undefined])
  const text = await probes['json-as-text']?.run(await service('json-as-text')) as Record<string, unknown>
  t.equal(text['content-type'], 'text/plain; charset=utf-8')
  const patched = await probes['patch-heartbeat-405']?.run(await service('patch-heartbeat-405')) as Record<string, unknown>
  t.equal(patched.status, 405)
})

// Probes that look at an answer another defect changes too: a refusal's status, headers or body;
// the same header changed another way; another token let in; a note read back after a write; an
// override or an Accept that another defect reads; the list of challenges another defect shortens,
// reorders or empties.
const overlaps = new Set([
  'swap-401-403 foreign-token', 'swap-401-403 error-no-content-type', 'swap-401-403 error-messages-null',
  'swap-401-403 token-any-case', 'swap-401-403 token-prefix', 'swap-401-403 shared-token',
  'lost-write note-cut-at-99', 'any-password no-www-authenticate', 'any-password login-challenge-bearer',
  'json-as-text note-write-201', 'json-as-text patch-heartbeat-405', 'json-as-text no-www-authenticate',
  'json-as-text heartbeat-200', 'json-as-text json-no-charset', 'json-as-text error-no-content-type',
  'json-no-charset json-as-text', 'json-no-charset error-no-content-type',
  'note-write-201 xml-body-refused', 'no-challenger-echo session-echo-caller',
  'no-www-authenticate login-challenge-bearer', 'login-challenge-bearer no-www-authenticate',
  'xml-charset-latin1 xml-ignored', 'challenges-extra-property json-as-text', 'challenge-id-string json-as-text',
  'error-messages-null no-www-authenticate', 'foreign-token shared-token', 'shared-token foreign-token',
  'note-cut-at-99 note-answered-at-101', 'note-answered-at-101 note-cut-at-99',
  'lost-write note-outside-ascii', 'lost-write note-answered-at-101', 'lost-write stale-read', 'lost-write note-trimmed',
  'stale-read note-cut-at-99', 'stale-read lost-write', 'stale-read note-outside-ascii', 'stale-read note-answered-at-101',
  'stale-read note-trimmed', 'override-ignored trace-heartbeat-500', 'xml-ignored xml-charset-latin1', 'xml-ignored stale-read',
  'last-challenge-missing json-as-text', 'challenges-out-of-order json-as-text', 'challenges-empty-anonymous json-as-text',
  'challenges-empty-anonymous challenges-extra-property', 'challenges-empty-anonymous challenge-id-string',
  'passed-listed-twice passed-listed-false'
])

t.test('a defect changes nothing else: the same probes of the other defects answer as the correct service', async t => {
  const correct = await service()
  const answers = new Map<string, unknown>()
  for (const [id, probe] of Object.entries(probes)) answers.set(id, await probe.run(correct))
  for (const defect of defects) {
    const app = await service(defect.id)
    for (const [id, probe] of Object.entries(probes)) {
      if (id === defect.id || overlaps.has(`${defect.id} ${id}`)) continue
      t.same(await probe.run(app), answers.get(id), `${defect.id} leaves ${id}'s probe alone`)
    }
  }
})

t.test('stale-read remembers the notes of at most STALE_NOTES sessions, forgetting the oldest first', async t => {
  const { STALE_NOTES, staleNotes } = await import('../../src/domain/defects/families/state.js')
  const { defectById } = await import('../../src/domain/defects/catalogue.js')
  const stale = defectById('stale-read') as NonNullable<ReturnType<typeof defectById>>
  const context = { credentials: basic('admin', 'password'), noteMaxLength: 100 }
  const session = (i: number) => ({ token: `t${i}`, note: 'old' })
  for (let i = 0; i <= STALE_NOTES; i++) stale.body?.({ method: 'POST', resource: '/secret/note', headers: {}, body: { note: 'new' }, session: session(i) }, context)
  t.equal(staleNotes(), STALE_NOTES)
  const read = (i: number) => stale.answer?.({ method: 'GET', resource: '/secret/note', headers: {}, body: undefined, session: { ...session(i), note: 'new' } }, {
    statusCode: 200, code () {}, getHeader: () => 'application/json; charset=utf-8', header () {}, removeHeader () {}
  }, '{"note":"new"}')
  t.same(read(0), { changed: false }, 'the first session is forgotten')
  t.same(read(STALE_NOTES), { changed: true, body: '{"note":"old"}' }, 'the last one is remembered')
})

t.test('the defects option is checked', async t => {
  await t.rejects(build(t, { defects: ['swap-401-403', 'nope'] }), /option defects must be an array of defect ids, got \["swap-401-403","nope"\]: unknown defect "nope"/)
  await t.rejects(build(t, { defects: 'swap-401-403' as unknown as string[] }), /option defects must be an array of defect ids/)
})

t.test('docs/bug-hunt.md lists every defect by id, family and name, after the spoiler warning', async t => {
  const { readFile } = await import('node:fs/promises')
  const doc = await readFile(new URL('../../docs/bug-hunt.md', import.meta.url), 'utf8')
  const after = doc.slice(doc.indexOf('**Spoiler warning**'))
  t.ok(doc.indexOf('**Spoiler warning**') > 0)
  const rows = [...after.matchAll(/^\| `([a-z0-9-]+)` \| ([a-z]+) \| (.+) \|$/gm)].map(([, id, family, name]) => [id, family, name])
  t.same(rows, defects.map(d => [d.id, d.family, d.name]))
  t.notMatch(doc.slice(0, doc.indexOf('**Spoiler warning**')), new RegExp(defects.filter(d => d.hunt).map(d => `\`${d.id}\``).join('|')), 'no huntable id before the warning')
})

t.test('each defect leaves alone what is not its case (its own function, called directly)', async t => {
  const { defectById } = await import('../../src/domain/defects/catalogue.js')
  const context = { credentials: basic('admin', 'password'), noteMaxLength: 100 }
  const session = { token: 'a'.repeat(32), note: 'kept' }
  const asked = (method: string, resource: string, headers: Record<string, string> = {}, body?: unknown, withSession = true) =>
    ({ method, resource, headers: { ...headers }, body, session: withSession ? session : null })
  const answer = (statusCode: number, headers: Record<string, string> = {}) => {
    const held = new Map(Object.entries(headers))
    return {
      statusCode,
      code (status: number) { this.statusCode = status },
      getHeader: (name: string) => held.get(name),
      header: (name: string, value: string) => { held.set(name, value) },
      removeHeader: (name: string) => { held.delete(name) }
    }
  }
  const phase = (id: string) => defectById(id) as NonNullable<ReturnType<typeof defectById>>
  const unchanged: Array<[string, boolean]> = [
    ['foreign-token: another route', phase('foreign-token').request?.(asked('GET', '/heartbeat', { 'x-auth-token': 'b'.repeat(32) }), context) ?? true],
    ['foreign-token: no session', phase('foreign-token').request?.(asked('GET', '/secret/note', { 'x-auth-token': 'b'.repeat(32) }, undefined, false), context) ?? true],
    ['foreign-token: its own Bearer token', phase('foreign-token').request?.(asked('GET', '/secret/note', { authorization: `Bearer ${session.token}` }), context) ?? true],
    ['foreign-token: a Bearer token of another shape', phase('foreign-token').request?.(asked('GET', '/secret/note', { authorization: 'Bearer bob' }), context) ?? true],
    ['foreign-token: no token', phase('foreign-token').request?.(asked('GET', '/secret/note'), context) ?? true],
    ['foreign-token: a token of another shape', phase('foreign-token').request?.(asked('GET', '/secret/note', { 'x-auth-token': 'bob' }), context) ?? true],
    ['note-cut-at-99: a GET', phase('note-cut-at-99').body?.(asked('GET', '/secret/note', {}, { note: 'x'.repeat(120) }), context) ?? true],
    ['note-cut-at-99: a short note', phase('note-cut-at-99').body?.(asked('POST', '/secret/note', {}, { note: 'x'.repeat(99) }), context) ?? true],
    ['note-cut-at-99: no note', phase('note-cut-at-99').body?.(asked('POST', '/secret/note', {}, { notes: 'x' }), context) ?? true],
    ['note-cut-at-99: a body that is no object', phase('note-cut-at-99').body?.(asked('POST', '/secret/note', {}, 'x'.repeat(120)), context) ?? true],
    ['lost-write: the same note', phase('lost-write').body?.(asked('POST', '/secret/note', {}, { note: 'kept' }), context) ?? true],
    ['lost-write: no session', phase('lost-write').body?.(asked('POST', '/secret/note', {}, { note: 'new' }, false), context) ?? true],
    ['lost-write: another route', phase('lost-write').body?.(asked('PUT', '/challenger/:guid', {}, { note: 'new' }), context) ?? true],
    ['bearer-loses: only Bearer', phase('bearer-loses').request?.(asked('GET', '/secret/note', { authorization: 'Bearer x' }), context) ?? true],
    ['bearer-loses: the same token both ways', phase('bearer-loses').request?.(asked('GET', '/secret/note', { authorization: 'Bearer x', 'x-auth-token': 'x' }), context) ?? true],
    ['bearer-loses: an empty X-AUTH-TOKEN', phase('bearer-loses').request?.(asked('GET', '/secret/note', { authorization: 'Bearer x', 'x-auth-token': '' }), context) ?? true],
    ['bearer-loses: another route', phase('bearer-loses').request?.(asked('GET', '/heartbeat', { authorization: 'Bearer x', 'x-auth-token': 'y' }), context) ?? true],
    ['override-ignored: no override', phase('override-ignored').request?.(asked('POST', '/heartbeat'), context) ?? true],
    ['override-ignored: a GET', phase('override-ignored').request?.(asked('GET', '/heartbeat', { 'x-http-method-override': 'PATCH' }), context) ?? true],
    ['any-password: no Authorization', phase('any-password').request?.(asked('POST', '/secret/token'), context) ?? true],
    ['any-password: Bearer', phase('any-password').request?.(asked('POST', '/secret/token', { authorization: 'Bearer x' }), context) ?? true],
    ['any-password: the right credentials', phase('any-password').request?.(asked('POST', '/secret/token', { authorization: context.credentials }), context) ?? true],
    ['any-password: a GET', phase('any-password').request?.(asked('GET', '/secret/token', { authorization: 'Basic eDp5' }), context) ?? true],
    ['xml-ignored: no Accept', phase('xml-ignored').request?.(asked('GET', '/secret/note'), context) ?? true],
    ['xml-ignored: JSON or XML', phase('xml-ignored').request?.(asked('GET', '/secret/note', { accept: 'application/json, application/xml' }), context) ?? true],
    ['xml-ignored: anything', phase('xml-ignored').request?.(asked('GET', '/secret/note', { accept: 'application/xml, */*' }), context) ?? true],
    ['swap-401-403: a 200', phase('swap-401-403').answer?.(asked('GET', '/secret/note'), answer(200), '').changed ?? true],
    ['swap-401-403: a POST', phase('swap-401-403').answer?.(asked('POST', '/secret/note'), answer(401), '').changed ?? true],
    ['note-write-201: a 400', phase('note-write-201').answer?.(asked('POST', '/secret/note'), answer(400), '').changed ?? true],
    ['no-challenger-echo: none to remove', phase('no-challenger-echo').answer?.(asked('GET', '/heartbeat'), answer(204), '').changed ?? true],
    ['no-challenger-echo: a session made', phase('no-challenger-echo').answer?.(asked('POST', '/challenger'), answer(201, { 'x-challenger': 'x' }), '').changed ?? true],
    ['no-www-authenticate: a 401 without it', phase('no-www-authenticate').answer?.(asked('GET', '/secret/note'), answer(401), '').changed ?? true],
    ['no-www-authenticate: a 201', phase('no-www-authenticate').answer?.(asked('POST', '/secret/token'), answer(201), '').changed ?? true],
    ['json-as-text: no body', phase('json-as-text').answer?.(asked('GET', '/heartbeat'), answer(204), '').changed ?? true],
    ['json-as-text: XML', phase('json-as-text').answer?.(asked('GET', '/secret/note'), answer(200, { 'content-type': 'application/xml' }), '').changed ?? true],
    ['created-200: a 200', phase('created-200').answer?.(asked('POST', '/challenger'), answer(200), '').changed ?? true],
    ['created-200: another route', phase('created-200').answer?.(asked('POST', '/secret/token'), answer(201), '').changed ?? true],
    ['heartbeat-200: a HEAD', phase('heartbeat-200').answer?.(asked('HEAD', '/heartbeat'), answer(204), '').changed ?? true],
    ['heartbeat-200: a 503', phase('heartbeat-200').answer?.(asked('GET', '/heartbeat'), answer(503), '').changed ?? true],
    ['patch-heartbeat-405: another route', phase('patch-heartbeat-405').answer?.(asked('PATCH', '/secret/note'), answer(500), '').changed ?? true],
    ['patch-heartbeat-405: a 405 already', phase('patch-heartbeat-405').answer?.(asked('PATCH', '/heartbeat'), answer(405), '').changed ?? true],
    ['content-type-unchecked: no session', phase('content-type-unchecked').request?.(asked('POST', '/secret/note', { 'content-type': 'text/plain', 'x-auth-token': session.token }, undefined, false), context) ?? true],
    ['content-type-unchecked: a wrong token', phase('content-type-unchecked').request?.(asked('POST', '/secret/note', { 'content-type': 'text/plain', 'x-auth-token': 'b'.repeat(32) }), context) ?? true],
    ['content-type-unchecked: a wrong Bearer, the right X-AUTH-TOKEN', phase('content-type-unchecked').request?.(asked('POST', '/secret/note', { 'content-type': 'text/plain', authorization: 'Bearer x', 'x-auth-token': session.token }), context) ?? true],
    ['content-type-unchecked: JSON', phase('content-type-unchecked').request?.(asked('POST', '/secret/note', { 'content-type': 'application/json; charset=utf-8', 'x-auth-token': session.token }), context) ?? true],
    ['content-type-unchecked: no media type', phase('content-type-unchecked').request?.(asked('POST', '/secret/note', { 'content-type': 'nonsense', 'x-auth-token': session.token }), context) ?? true],
    ['xml-body-refused: a wrong token', phase('xml-body-refused').request?.(asked('POST', '/secret/note', { 'content-type': 'text/xml', 'x-auth-token': 'bob' }), context) ?? true]
  ]
  for (const [name, changed] of unchanged) t.equal(changed, false, name)
  t.equal(phase('content-type-unchecked').request?.(asked('POST', '/secret/note', { 'content-type': 'text/plain', authorization: `Bearer ${session.token}` }), context), true, 'content-type-unchecked: text/plain with the Bearer token')
  // The cases they are for, for contrast: the same functions do change these.
  t.equal(phase('foreign-token').request?.(asked('GET', '/secret/note', { authorization: `Bearer ${'b'.repeat(32)}` }), context), true, 'foreign-token: another session\'s Bearer token')
  t.equal(phase('lost-write').payload?.(asked('GET', '/secret/note'), { note: 'x' }, context), undefined, 'lost-write: a payload with no write behind it')
})
