// Adding a challenge, as the README's "Add a challenge" says: a new row in the list, sorted by id,
// with a bit never used before, and a route that asks for its trigger's bit and passes it. Until a
// route asks for its trigger it is unreachable (the app refuses to start); stored progress keeps
// its meaning; a bit used twice is refused.
import Fastify, { type FastifyInstance } from 'fastify'
import { execFileSync } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import t, { type Test } from 'tap'
import { createCatalogue, isPassed } from '../src/domain/catalogue.js'
import { challenges, type Challenge, type Trigger } from '../src/domain/challenge-list.js'

/** The next free bit, as the README says a new challenge takes: one above the highest in use. */
const NEXT_BIT = Math.max(...challenges.map(c => c.bit)) + 1

const added: Challenge = {
  id: 39,
  referenceName: 'HEAD_HEARTBEAT_204',
  name: 'HEAD /heartbeat (204)',
  description: 'Send HEAD to /heartbeat.',
  trigger: 'HEAD /heartbeat' as Trigger,
  bit: NEXT_BIT,
  hint: 'HEAD /heartbeat',
  nearMisses: [{ when: request => request.method === 'GET', says: () => 'Challenge 39 needs HEAD' }]
}
const list = [...challenges.filter(c => c.id < 39), added, ...challenges.filter(c => c.id > 39)]

// The README's steps compile a copy of the service (tsc), which takes 25 s or more on a loaded
// machine: more than tap's 30 s per file.
t.setTimeout(180_000)

t.test('a new challenge is unreachable until a route asks for its trigger', async t => {
  const catalogue = createCatalogue(list)
  const emitted = new Set<string>(challenges.map(c => c.trigger))
  t.same(catalogue.unreachable(emitted).map(c => c.id), [39], 'the app would refuse to start, naming 39')
  t.equal(catalogue.bitFor(added.trigger), 1 << NEXT_BIT, 'its route asks for its bit')
  t.same(catalogue.unreachable(emitted.add(added.trigger)), [])
})

t.test('progress stored before the change means the same after it, and the new one fits in', async t => {
  const before = createCatalogue(challenges)
  const after = createCatalogue(list)
  const stored = before.progressFrom({ '01': true, 38: true, 42: true })
  const map = after.statusMap(stored)
  t.same(Object.keys(map).filter(id => map[id] === true).sort(), ['01', '38', '42'])
  t.equal(map['39'], false)
  const withNew = stored | after.bitFor(added.trigger)
  t.ok(isPassed(withNew, added))
  t.same(before.statusMap(withNew), before.statusMap(stored), 'the old list ignores the new bit')
  t.same(Object.keys(after.statusMap(0)).length, challenges.length + 1)
})

t.test('the list is checked: a bit or an id used twice, or a bit out of range, is refused', async t => {
  t.throws(() => createCatalogue([...list, { ...added, id: 43, referenceName: 'X', trigger: 'X' as Trigger }]), new RegExp(`bit ${NEXT_BIT} used twice`))
  t.throws(() => createCatalogue([...list, { ...added, bit: NEXT_BIT + 1, referenceName: 'X', trigger: 'X' as Trigger }]), /id 39 used twice/)
  t.throws(() => createCatalogue([...list, { ...added, id: 43, bit: 31, referenceName: 'X', trigger: 'X' as Trigger }]), /challenge 43 has bit 31/)
  t.throws(() => createCatalogue([...list, { ...added, id: 43, bit: NEXT_BIT + 1, referenceName: 'X', trigger: 'X' as Trigger, nearMisses: [] }]), /challenge 43 has no near miss/)
})

// The README's steps, followed on a copy of the service: its sources are changed as the steps say,
// the copy is compiled, and its app is run, with and without the new route.
const root = fileURLToPath(new URL('..', import.meta.url))

const ROW = `  {
    id: 39,
    referenceName: 'GET_FIXTURE_200',
    name: 'GET /fixture (200)',
    description: 'Send GET to /fixture.',
    trigger: 'GET /fixture reached',
    bit: ${NEXT_BIT},
    hint: \`GET /fixture\\nX-CHALLENGER: \${ID}\`,
    nearMisses: [{ when: request => request.method === 'HEAD', says: () => 'Challenge 39 needs GET, not HEAD' }]
  },
`

const ROUTE = `import type { FastifyPluginAsync } from 'fastify'

const fixture: FastifyPluginAsync = async (fastify) => {
  const reached = fastify.bitFor('GET /fixture reached')
  fastify.get('/fixture', async (request, reply) => {
    // This handler answers HEAD too, which is not GET.
    await request.pass(request.method === 'GET' ? reached : 0)
    return reply.send({ reached: true })
  })
  fastify.allowOnly('/fixture', ['GET', 'HEAD', 'OPTIONS'])
}

export default fixture
`

/** Replaces `find`, which must be there once, in `file` of the copy. */
function edit (copy: string, file: string, find: string, replace: string): void {
  const text = readFileSync(join(copy, file), 'utf8')
  if (text.split(find).length !== 2) throw new Error(`${file}: expected ${JSON.stringify(find)} once`)
  writeFileSync(join(copy, file), text.replace(find, replace))
}

type App = typeof import('../src/app.js')['default']

/** The copy, changed by the README's steps and compiled: its app, and the same app without the new route. */
async function copyWithChallenge (t: Test): Promise<{ withRoute: App, withoutRoute: App }> {
  const copy = mkdtempSync(join(tmpdir(), 'add-challenge-'))
  t.teardown(() => { rmSync(copy, { recursive: true, force: true }) })
  for (const dir of ['src', 'plugins', 'routes', 'public']) cpSync(join(root, dir), join(copy, dir), { recursive: true })
  for (const file of ['package.json', 'tsconfig.json', 'tsconfig.build.json']) cpSync(join(root, file), join(copy, file))
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir')
  // Step 1: the trigger, and the row in id order with the next free bit.
  edit(copy, 'src/domain/challenge-list.ts', "  | 'POST /secret/note bearer'\n", "  | 'POST /secret/note bearer'\n  | 'GET /fixture reached'\n")
  edit(copy, 'src/domain/challenge-list.ts', '  {\n    id: 40,', `${ROW}  {\n    id: 40,`)
  // Step 2: the route that passes it, registered by the app.
  writeFileSync(join(copy, 'routes/fixture.ts'), ROUTE)
  edit(copy, 'src/app.ts', "import secret from '../routes/secret.js'\n", "import secret from '../routes/secret.js'\nimport fixture from '../routes/fixture.js'\n")
  edit(copy, 'src/app.ts', '    await base.register(challenges)\n', '    await base.register(challenges)\n    await base.register(fixture)\n')
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: copy })
  // The same compiled app without the step-2 registration: one module graph, two apps.
  const compiled = join(copy, 'dist/src/app.js')
  const without = join(copy, 'dist/src/app-without-route.js')
  writeFileSync(without, readFileSync(compiled, 'utf8').replace(/\n\s*await base\.register\(fixture\);?\n/, '\n'))
  const withRoute = (await import(pathToFileURL(compiled).href) as { default: App }).default
  const withoutRoute = (await import(pathToFileURL(without).href) as { default: App }).default
  return { withRoute, withoutRoute }
}

async function started (t: Test, app: App): Promise<FastifyInstance> {
  const server = Fastify()
  t.teardown(() => server.close())
  server.register(app)
  await server.ready()
  return server
}

interface Status { challengeStatus: Record<string, boolean> }
interface Row { id: number, status: boolean }

t.test('following the README on a copy: the new challenge is passed through its route, and the app refuses to start without it', async t => {
  const { withRoute, withoutRoute } = await copyWithChallenge(t)

  const server = await started(t, withRoute)
  const guid = (await server.inject({ method: 'POST', url: '/challenger' })).headers['x-challenger'] as string
  t.equal((await server.inject({ url: `/challenger/${guid}` })).json<Status>().challengeStatus['39'], false)
  const head = await server.inject({ method: 'HEAD', url: '/fixture', headers: { 'x-challenger': guid } })
  t.equal(head.statusCode, 200)
  t.equal((await server.inject({ url: `/challenger/${guid}` })).json<Status>().challengeStatus['39'], false, 'HEAD is not GET')
  const get = await server.inject({ url: '/fixture', headers: { 'x-challenger': guid } })
  t.same(get.json(), { reached: true })
  const status = (await server.inject({ url: `/challenger/${guid}` })).json<Status>().challengeStatus
  t.same(Object.keys(status).filter(id => status[id]).sort(), ['01', '39'], 'challenge 39 passed, and nothing else')
  const rows = (await server.inject({ url: '/challenges', headers: { 'x-challenger': guid } })).json<{ challenges: Row[] }>().challenges
  const ids = rows.map(row => row.id)
  t.same(ids.slice(ids.indexOf(38), ids.indexOf(38) + 3), [38, 39, 40], 'listed in its place')
  t.same(rows.filter(row => row.status).map(row => row.id), [1, 2, 39], 'with challenges 01 and 02, the list\'s own')
  t.equal((await server.inject({ method: 'DELETE', url: '/fixture' })).statusCode, 405, 'the method guard answers its other methods')

  // The check is the app's: the same modules, already asked for the trigger by the app above, do
  // not let an app without the route start.
  const without = Fastify()
  t.teardown(() => without.close())
  without.register(withoutRoute)
  await t.rejects(async () => { await without.ready() }, /api-challenges: no route reports "GET \/fixture reached" \(challenge 39\)/)
})

t.test('in this very app: without the heartbeat\'s route, the app refuses to start, naming its seven challenges', async t => {
  const { default: app } = await t.mockImport<typeof import('../src/app.js')>('../src/app.js', {
    '../routes/heartbeat.js': async () => {}
  })
  const server = Fastify()
  t.teardown(() => server.close())
  server.register(app)
  const error = await server.ready().then(() => null, (error: Error) => error)
  t.match(error?.message, /^api-challenges: no route reports /)
  t.same([...(error?.message ?? '').matchAll(/\(challenge (\d+)\)/g)].map(match => Number(match[1])).sort((a, b) => a - b), [25, 26, 27, 28, 40, 41, 42])
})
