// Each deliberate defect changes one answer, and only with it active: the same request on the
// correct service (the first build) and on the service with the defect (the second) differ as the
// catalogue says, and nowhere else that the probe looks.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import t from 'tap'
import { checkDefectIds, defects, drawHunt, HUNT_SIZE } from '../src/domain/defects/catalogue.js'
import { basic, build, newSession } from './helper.js'

interface Probe {
  /** What the test does on a service, and the facts of the answer it compares. */
  run: (app: FastifyInstance) => Promise<unknown>
}

const facts = (res: LightMyRequestResponse, ...headers: string[]): unknown => ({
  status: res.statusCode,
  body: res.body,
  ...Object.fromEntries(headers.map(name => [name, res.headers[name]]))
})

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
  'heartbeat-200': [{ status: 204, body: '' }, { status: 200, body: '{"alive":true}' }]
}

t.test('the catalogue: at least 12 defects, each with its words and a probe here', async t => {
  t.ok(defects.length >= 12, `${defects.length} defects`)
  t.same(new Set(defects.map(d => d.id)).size, defects.length, 'the ids are distinct')
  for (const defect of defects) {
    t.match(defect.id, /^[a-z0-9]+(-[a-z0-9]+)*$/, `${defect.id}: a plain id`)
    for (const field of ['name', 'breaks', 'check', 'why'] as const) t.ok(defect[field].length > 10, `${defect.id} says its ${field}`)
    t.ok(probes[defect.id] !== undefined, `${defect.id} has a probe`)
  }
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
    const correct = await probe.run(await build(t))
    const defective = await probe.run(await build(t, { defects: [defect.id] }))
    t.notSame(defective, correct, 'the answer differs with the defect')
    const known = expected[defect.id]
    if (known !== undefined) t.same([correct, defective], known)
  })
}

t.test('the specific differences of the header defects', async t => {
  const correct = await build(t)
  t.same(await probes['no-challenger-echo']?.run(correct), { status: 200, echoed: true })
  t.same(await probes['no-challenger-echo']?.run(await build(t, { defects: ['no-challenger-echo'] })), { status: 200, echoed: false })
  t.equal((await probes['no-www-authenticate']?.run(correct) as Record<string, unknown>)['www-authenticate'], 'Basic realm="User Visible Realm"')
  const missing = await probes['no-www-authenticate']?.run(await build(t, { defects: ['no-www-authenticate'] })) as Record<string, unknown>
  t.same([missing.status, missing['www-authenticate']], [401, undefined])
  const text = await probes['json-as-text']?.run(await build(t, { defects: ['json-as-text'] })) as Record<string, unknown>
  t.equal(text['content-type'], 'text/plain; charset=utf-8')
  const patched = await probes['patch-heartbeat-405']?.run(await build(t, { defects: ['patch-heartbeat-405'] })) as Record<string, unknown>
  t.equal(patched.status, 405)
})

// Probes that look at an answer another defect changes too: the refusals of a foreign token, a
// note read back, a refused login, and the answers with JSON bodies.
const overlaps = new Set([
  'swap-401-403 foreign-token', 'lost-write note-cut-at-99', 'any-password no-www-authenticate',
  'json-as-text note-write-201', 'json-as-text patch-heartbeat-405', 'json-as-text no-www-authenticate',
  'json-as-text heartbeat-200'
])

t.test('a defect changes nothing else: the same probes of the other defects answer as the correct service', async t => {
  const correct = await build(t)
  const answers = new Map<string, unknown>()
  for (const [id, probe] of Object.entries(probes)) answers.set(id, await probe.run(correct))
  for (const defect of defects) {
    const app = await build(t, { defects: [defect.id] })
    for (const [id, probe] of Object.entries(probes)) {
      if (id === defect.id || overlaps.has(`${defect.id} ${id}`)) continue
      t.same(await probe.run(app), answers.get(id), `${defect.id} leaves ${id}'s probe alone`)
    }
  }
})

t.test('the defects option is checked', async t => {
  await t.rejects(build(t, { defects: ['swap-401-403', 'nope'] }), /option defects must be an array of defect ids, got \["swap-401-403","nope"\]: unknown defect "nope"/)
  await t.rejects(build(t, { defects: 'swap-401-403' as unknown as string[] }), /option defects must be an array of defect ids/)
})

t.test('docs/bug-hunt.md lists every defect by id and name, after the spoiler warning', async t => {
  const { readFile } = await import('node:fs/promises')
  const doc = await readFile(new URL('../docs/bug-hunt.md', import.meta.url), 'utf8')
  const after = doc.slice(doc.indexOf('**Spoiler warning**'))
  t.ok(doc.indexOf('**Spoiler warning**') > 0)
  const rows = [...after.matchAll(/^\| `([a-z0-9-]+)` \| (.+) \|$/gm)].map(([, id, name]) => [id, name])
  t.same(rows, defects.map(d => [d.id, d.name]))
  t.notMatch(doc.slice(0, doc.indexOf('**Spoiler warning**')), new RegExp(defects.filter(d => d.hunt).map(d => `\`${d.id}\``).join('|')), 'no huntable id before the warning')
})
