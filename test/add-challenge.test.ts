// Adding a challenge, as docs/architecture.md ("Add a
// challenge") says: a row in the catalogue, sorted by id, with a bit never used before; its trigger
// asked for by a route, which passes it; its test. Three files: everything else (the Trigger type,
// GET /challenges, the pages, the OpenAPI document's solution links, the counts) is read from the
// row. Until a route asks for its trigger it is unreachable (the app refuses to start); stored
// progress keeps its meaning; a bit used twice is refused.
import Fastify, { type FastifyInstance } from 'fastify'
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import t, { type Test } from 'tap'
import { createCatalogue, isPassed, resourceOf } from '../src/domain/challenges/catalogue.js'
import { challenges, type Challenge, type Trigger } from '../src/domain/challenges/challenge-list.js'

/** The next free bit, as a new challenge takes: one above the highest in use. */
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

// The steps are followed on a copy of the service, compiled (tsc, 25 s or more on a loaded
// machine) and tested (tap, a minute or more on a loaded one): more than tap's 30 s per file.
t.setTimeout(600_000)

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
  t.throws(() => createCatalogue([...list, { ...added, id: 99, referenceName: 'X', trigger: 'X' as Trigger }]), new RegExp(`bit ${NEXT_BIT} used twice`))
  t.throws(() => createCatalogue([...list, { ...added, bit: NEXT_BIT + 1, referenceName: 'X', trigger: 'X' as Trigger }]), /id 39 used twice/)
  t.throws(() => createCatalogue([...list, { ...added, id: 99, bit: 31, referenceName: 'X', trigger: 'X' as Trigger }]), /challenge 99 has bit 31/)
  t.throws(() => createCatalogue([...list, { ...added, id: 99, bit: NEXT_BIT + 1, referenceName: 'X', trigger: 'X' as Trigger, nearMisses: [] }]), /challenge 99 has no near miss/)
})

// The steps, followed on a copy of the service and its tests: four files are changed (counted),
// the copy is compiled and its app run, with and without the route's line, and the copy's tests
// that read the catalogue run green with the new challenge in it.
const root = fileURLToPath(new URL('..', import.meta.url))

// Step 1: the row, in id order (before 40), with the next free bit.
const ROW = `  {
    id: 39,
    referenceName: 'OPTIONS_HEARTBEAT_204',
    solution: 'status-codes/options-heartbeat-204',
    name: 'OPTIONS /heartbeat (204)',
    description: 'Ask /heartbeat which methods it answers, with OPTIONS.',
    trigger: 'OPTIONS /heartbeat',
    bit: ${NEXT_BIT},
    hint: \`OPTIONS /heartbeat\\nX-CHALLENGER: \${ID}\`,
    nearMisses: [{ when: r => r.method === 'POST' && r.override === 'OPTIONS', says: () => 'Challenge 39 needs the OPTIONS method itself; X-HTTP-Method-Override: OPTIONS passes nothing' }]
  },
`

// Step 2: the route asks for the trigger's bit and passes it (the heartbeat passes the bit of the method sent).
const ROUTE_LINE = "      ['OPTIONS', fastify.bitFor('OPTIONS /heartbeat')]\n"

// Step 3: its test, beside the others, and its line in their group's test file.
const TEST = `import t from 'tap'
import { build, passed } from '../helper.js'

t.test('OPTIONS /heartbeat passes challenge 39; a POST posing as OPTIONS is its near miss', async t => {
  const app = await build(t)
  const guid = (await app.inject({ method: 'POST', url: '/challenger' })).headers['x-challenger'] as string
  const near = await app.inject({ method: 'POST', url: '/heartbeat', headers: { 'x-challenger': guid, 'x-http-method-override': 'OPTIONS' } })
  t.equal(near.statusCode, 405)
  t.same(await passed(app, guid), [1])
  const [entry] = (await app.inject({ url: \`/challenger/\${guid}/requests\` })).json().requests
  t.equal(entry.hint, 'Challenge 39 needs the OPTIONS method itself; X-HTTP-Method-Override: OPTIONS passes nothing')
  t.equal((await app.inject({ method: 'OPTIONS', url: '/heartbeat', headers: { 'x-challenger': guid } })).statusCode, 204)
  t.same(await passed(app, guid), [1, 39])
})
`
const NEW_TEST = 'test/routes/options-heartbeat.ts'
const GROUP = 'test/routes.test.ts'

/** Replaces `find`, which must be there once, in `file` of the copy. */
function edit (copy: string, file: string, find: string, replace: string): void {
  const text = readFileSync(join(copy, file), 'utf8')
  if (text.split(find).length !== 2) throw new Error(`${file}: expected ${JSON.stringify(find)} once`)
  writeFileSync(join(copy, file), text.replace(find, replace))
}

const COPIED = ['src', 'plugins', 'routes', 'public', 'test']

/** The files of the copy that differ from this tree's, or are new in it. */
function changedFiles (copy: string): string[] {
  return COPIED.flatMap(dir => readdirSync(join(copy, dir), { recursive: true, encoding: 'utf8' }).map(file => join(dir, file)))
    .filter(file => !statSync(join(copy, file)).isDirectory())
    .filter(file => !existsSync(join(root, file)) || !readFileSync(join(root, file)).equals(readFileSync(join(copy, file))))
    .sort()
}

type App = typeof import('../src/app.js')['default']

/** The copy, changed by the steps and compiled: its app, and the same app without the route's line. */
async function copyWithChallenge (t: Test): Promise<{ copy: string, withRoute: App, withoutRoute: App }> {
  const copy = mkdtempSync(join(tmpdir(), 'add-challenge-'))
  t.teardown(() => { rmSync(copy, { recursive: true, force: true }) })
  for (const dir of COPIED) cpSync(join(root, dir), join(copy, dir), { recursive: true })
  for (const file of ['package.json', 'tsconfig.json', 'tsconfig.build.json', '.taprc']) cpSync(join(root, file), join(copy, file))
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir')
  edit(copy, 'src/domain/challenges/challenge-list.ts', '  {\n    id: 40,', `${ROW}  {\n    id: 40,`)
  edit(copy, 'routes/heartbeat.ts', "      ['TRACE', fastify.bitFor('TRACE /heartbeat')]\n", "      ['TRACE', fastify.bitFor('TRACE /heartbeat')],\n" + ROUTE_LINE)
  writeFileSync(join(copy, NEW_TEST), TEST)
  writeFileSync(join(copy, GROUP), `${readFileSync(join(copy, GROUP), 'utf8')}import './routes/options-heartbeat.js'\n`)
  t.same(changedFiles(copy), ['routes/heartbeat.ts', 'src/domain/challenges/challenge-list.ts', GROUP, NEW_TEST], 'four files, and no other')
  // The build is incremental (tsconfig.build.json): with this tree's build beside it, tsc compiles
  // what the steps changed and what depends on it; without one, everything.
  if (existsSync(join(root, 'dist', '.tsbuildinfo'))) cpSync(join(root, 'dist'), join(copy, 'dist'), { recursive: true })
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: copy })
  // The same compiled app without the route's line: a second heartbeat module, and an app that imports it.
  const dist = join(copy, 'dist')
  const heartbeat = readFileSync(join(dist, 'routes/heartbeat.js'), 'utf8')
  const withoutLine = heartbeat.replace(/\n\s*\['OPTIONS', fastify\.bitFor\('OPTIONS \/heartbeat'\)\]/, '')
  t.equal(heartbeat.length - withoutLine.length > 40, true, 'the compiled line is taken out')
  writeFileSync(join(dist, 'routes/heartbeat-without.js'), withoutLine)
  writeFileSync(join(dist, 'src/app-without-route.js'), readFileSync(join(dist, 'src/app.js'), 'utf8').replace("'../routes/heartbeat.js'", "'../routes/heartbeat-without.js'"))
  const withRoute = (await import(pathToFileURL(join(dist, 'src/app.js')).href) as { default: App }).default
  const withoutRoute = (await import(pathToFileURL(join(dist, 'src/app-without-route.js')).href) as { default: App }).default
  return { copy, withRoute, withoutRoute }
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

t.test('following the steps on a copy: four files, and the new challenge is passed through its route, listed, linked and counted', async t => {
  const { copy, withRoute, withoutRoute } = await copyWithChallenge(t)

  const server = await started(t, withRoute)
  const guid = (await server.inject({ method: 'POST', url: '/challenger' })).headers['x-challenger'] as string
  t.equal((await server.inject({ url: `/challenger/${guid}` })).json<Status>().challengeStatus['39'], false)
  const options = await server.inject({ method: 'OPTIONS', url: '/heartbeat', headers: { 'x-challenger': guid } })
  t.equal(options.statusCode, 204)
  const status = (await server.inject({ url: `/challenger/${guid}` })).json<Status>().challengeStatus
  t.same(Object.keys(status).filter(id => status[id]).sort(), ['01', '39'], 'challenge 39 passed, and nothing else')
  const rows = (await server.inject({ url: '/challenges', headers: { 'x-challenger': guid } })).json<{ challenges: Row[] }>().challenges
  const ids = rows.map(row => row.id)
  t.same(ids.slice(ids.indexOf(38), ids.indexOf(38) + 3), [38, 39, 40], 'listed in its place')
  t.same(rows.filter(row => row.status).map(row => row.id), [1, 2, 39], 'with challenges 01 and 02, the list\'s own')
  const page = (await server.inject({ url: `/gui/challenges/${guid}` })).body
  t.match(page, `3 of ${challenges.length + 1} done`, 'the page counts it, out of one more than before')
  t.match(page, 'solutions/status-codes/options-heartbeat-204', 'and links its solution')
  const doc = (await server.inject('/docs/json')).json<{ paths: Record<string, Record<string, { description?: string }>> }>()
  t.match(doc.paths['/heartbeat']?.options?.description, /- Challenge 39, OPTIONS \/heartbeat \(204\): \[Solution/, 'the OpenAPI document links it on its operation')

  // The check is the app's: the same modules, already asked for the trigger by the app above, do
  // not let an app without the route's line start.
  const without = Fastify()
  t.teardown(() => without.close())
  without.register(withoutRoute)
  await t.rejects(async () => { await without.ready() }, { code: 'APICH_UNREACHABLE_CHALLENGE', message: /^api-challenges: no route reports "OPTIONS \/heartbeat" \(challenge 39\)$/ })

  // Nothing else needed changing: the copy's tests that read the catalogue, and the new one, pass; and the house's
  // test finds the new one in its group's file, so \`npm test\` runs it.
  const tests = [NEW_TEST, 'test/modules/domain.ts', 'test/journal/journal.ts', 'test/routes/challenges-shape.ts', 'test/pages/docs.ts', 'test/pages/pages.ts', 'test/routes/challenger.ts', 'test/setup/house.ts']
  const run = spawnSync(process.execPath, [join(root, 'node_modules/tap/dist/esm/run.mjs'), '--disable-coverage', '--reporter=tap', ...tests], { cwd: copy, encoding: 'utf8' })
  if (run.status !== 0) t.comment(`${run.stdout}${run.stderr}`)
  t.equal(run.status, 0, 'the copy\'s tests pass')
  t.same([...run.stdout.matchAll(/^ok \d+ - (test\/\S+)/gm)].map(match => match[1]).sort(), [...tests].sort(), 'each of them ran')
})

t.test('in this very app: without the heartbeat\'s route, the app refuses to start, naming its challenges', async t => {
  const { default: app } = await t.mockImport<typeof import('../src/app.js')>('../src/app.js', {
    '../routes/heartbeat.js': async () => {}
  })
  const server = Fastify()
  t.teardown(() => server.close())
  server.register(app)
  const error = await server.ready().then(() => null, (error: Error) => error)
  t.match(error?.message, /^api-challenges: no route reports /)
  // 47, the 431 of an over-long X-CHALLENGER, is passed by the session step of every API route, which asks for its trigger.
  const onHeartbeat = challenges.filter(c => resourceOf(c.trigger) === '/heartbeat' && c.id !== 47).map(c => c.id)
  t.ok(onHeartbeat.length >= 7, 'seven at least')
  t.same([...(error?.message ?? '').matchAll(/\(challenge (\d+)\)/g)].map(match => Number(match[1])).sort((a, b) => a - b), onHeartbeat)
})
