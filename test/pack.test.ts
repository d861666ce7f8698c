// The published shape, not the source tree: `npm pack`, install the tarball into a fresh Fastify
// project with docs/embedding.md's commands as written (offline: the versions our lockfile resolved,
// from the npm cache), mount it under a prefix beside a host route, drive the secret-note flow, run
// the docs' examples (JavaScript; TypeScript with its tsconfig.json and commands) and a CommonJS
// require(), and start its bin.
import { execFile, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'

const run = promisify(execFile)
const root = fileURLToPath(new URL('..', import.meta.url))

interface LockEntry {
  version: string
  dependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  peerDependenciesMeta?: Record<string, { optional?: boolean }>
  optional?: boolean
  [key: string]: unknown
}

/** Where Node would find `name` from the package at `from` (a lockfile path such as node_modules/a). */
function resolve (packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  for (let base = from; ; base = base.slice(0, base.lastIndexOf('/node_modules/'))) {
    const candidate = `${base === '' ? '' : base + '/'}node_modules/${name}`
    if (packages[candidate] !== undefined) return candidate
    if (!base.includes('/node_modules/')) return packages[`node_modules/${name}`] === undefined ? undefined : `node_modules/${name}`
  }
}

/** The lockfile entries `names` need, as our lockfile resolved them. */
function closure (packages: Record<string, LockEntry>, names: string[]): Record<string, LockEntry> {
  const out: Record<string, LockEntry> = {}
  const queue = names.map(name => `node_modules/${name}`)
  for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
    if (out[path] !== undefined) continue
    const { dev: _dev, peer: _peer, devOptional: _devOptional, ...entry } = packages[path] as LockEntry
    out[path] = entry
    const needs = { ...entry.dependencies, ...entry.peerDependencies }
    for (const name of Object.keys(needs)) {
      if (entry.peerDependenciesMeta?.[name]?.optional === true) continue
      const found = resolve(packages, path, name)
      if (found !== undefined) queue.push(found)
    }
  }
  return out
}

// Packing builds the TypeScript, then the host installs and compiles: on a busy two-core machine
// that alone can take tap's default 30 s for a file, and under CI's load (four files at once) the whole, with
// npx and the TypeScript example, took over 180 s.
t.setTimeout(540_000)

/** A block of `kind` (sh, js, ts, json) in `markdown`: the first after `heading`. */
function block (markdown: string, heading: string, kind: string): string {
  const found = new RegExp('```' + kind + '\\n([\\s\\S]*?)```').exec(markdown.slice(markdown.indexOf(`\n${heading}\n`)))?.[1]
  if (found === undefined) throw new Error(`no ${kind} block under ${heading}`)
  return found
}

/** A shell block's commands: its lines without comments. */
const commands = (sh: string): string[] => sh.split('\n').map(line => line.replace(/(^|\s)#.*$/, '').trim()).filter(line => line !== '')

t.test('the packed tarball installs offline as docs/embedding.md says, runs its examples (ESM, TypeScript and CommonJS), mounts under a prefix and runs as a bin', async t => {
  const base = await mkdtemp(join(tmpdir(), 'api-challenges-pack-'))
  t.teardown(() => rm(base, { recursive: true, force: true }))
  // The tarball where npm pack makes it, in the folder of a clone; the host project is made beside it.
  const clone = join(base, 'api-challenges-fastify')
  await mkdir(clone)
  const packed = await run('npm', ['pack', '--silent', '--pack-destination', clone], { cwd: root, maxBuffer: 16 * 1024 * 1024 })
  const tarball = packed.stdout.trim().split('\n').at(-1) as string
  const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'))
  const lock = JSON.parse(await readFile(join(root, 'package-lock.json'), 'utf8'))
  const versionOf = (name: string): string => (lock.packages[`node_modules/${name}`] as LockEntry).version
  const integrity = 'sha512-' + createHash('sha512').update(await readFile(join(clone, tarball))).digest('base64')
  const embedding = await readFile(new URL('../docs/embedding.md', import.meta.url), 'utf8')

  // A lockfile of exactly the versions ours resolved, written before each npm install of the docs, lets
  // npm take every package from its cache (each with the URL it was fetched from, which npm needs then).
  const seedLock = async (project: string): Promise<void> => {
    const host = JSON.parse(await readFile(join(project, 'package.json'), 'utf8'))
    const packages = closure(lock.packages, [...Object.keys(pkg.dependencies), 'fastify', 'typescript'])
    for (const [path, entry] of Object.entries(packages)) {
      const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)
      entry.resolved ??= `https://registry.npmjs.org/${name}/-/${name.split('/').at(-1) as string}-${entry.version}.tgz`
    }
    const dependencies = { ...host.dependencies, [pkg.name]: `file:../api-challenges-fastify/${tarball}`, fastify: `^${versionOf('fastify')}` }
    const devDependencies = { ...host.devDependencies, typescript: `^${versionOf('typescript')}` }
    await writeFile(join(project, 'package-lock.json'), JSON.stringify({
      name: host.name,
      version: host.version,
      lockfileVersion: 3,
      requires: true,
      packages: {
        '': { name: host.name, version: host.version, dependencies, devDependencies },
        [`node_modules/${pkg.name}`]: {
          version: pkg.version,
          resolved: `file:../api-challenges-fastify/${tarball}`,
          integrity,
          license: pkg.license,
          dependencies: pkg.dependencies,
          peerDependencies: pkg.peerDependencies,
          bin: pkg.bin,
          engines: pkg.engines
        },
        ...packages
      }
    }, null, 2))
  }
  // Its cache first: all it may fetch is the list of TypeScript's versions, which an install that names it asks for.
  const offline = { ...process.env, npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' }
  // One command of the docs, as written, in the folder the one before ended in (a `cd` carries over); that folder.
  const shell = async (command: string, cwd: string): Promise<{ cwd: string, stdout: string }> => {
    if (/^npm install\b/.test(command)) await seedLock(cwd)
    const { stdout } = await run('sh', ['-c', `${command} && pwd`], { cwd, env: offline, maxBuffer: 16 * 1024 * 1024 })
    const lines = stdout.trimEnd().split('\n')
    return { cwd: lines.at(-1) as string, stdout: lines.slice(0, -1).join('\n') }
  }

  // The docs' install: a project beside the clone, the tarball named by its path.
  const install = commands(block(embedding, '## Install', 'sh'))
  t.same(install, ['mkdir my-course && cd my-course', 'npm init -y && npm pkg set type=module', `npm install fastify ../api-challenges-fastify/${tarball}`], 'the docs\' install, found')
  let dir = base
  for (const command of install) dir = (await shell(command, dir)).cwd
  t.equal(dir, join(base, 'my-course'))
  const host = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'))
  t.equal(host.type, 'module')
  t.same(host.dependencies, { fastify: `^${versionOf('fastify')}`, [pkg.name]: `file:../api-challenges-fastify/${tarball}` }, 'the tarball by its path')
  // fastify is a peer: the plugin uses the host's own copy, not one of its own beside it.
  const fastifyFrom = (file: string): string => createRequire(file).resolve('fastify/package.json')
  t.equal(fastifyFrom(join(dir, 'node_modules', pkg.name, 'package.json')), fastifyFrom(join(dir, 'package.json')), 'one fastify: the host\'s')

  await writeFile(join(dir, 'host.ts'), `
import Fastify from 'fastify'
import apiChallenges, { frameworkErrors, type ApiChallengesOptions } from '${pkg.name}'
const options: ApiChallengesOptions = { noteMaxLength: 5 }
const app = Fastify({ frameworkErrors })
app.get('/mine', async () => ({ host: true }))
// The package's types add nothing to the host's own routes: reply.fail is the service's own.
// @ts-expect-error fail is not a method of the host's replies
app.get('/fail', async (_request, reply) => reply.fail(400, 'no'))
await app.register(apiChallenges, { prefix: '/practice', ...options })
export default app
`)
  await writeFile(join(dir, 'host.mjs'), `
import Fastify from 'fastify'
import apiChallenges from '${pkg.name}'
const app = Fastify()
app.get('/mine', async () => ({ host: true }))
await app.register(apiChallenges, { prefix: '/practice', noteMaxLength: 5 })
const guid = (await app.inject({ method: 'POST', url: '/practice/challenger' })).headers['x-challenger']
const auth = 'Basic ' + Buffer.from('admin:password').toString('base64')
const token = (await app.inject({ method: 'POST', url: '/practice/secret/token', headers: { 'x-challenger': guid, authorization: auth } })).headers['x-auth-token']
const write = await app.inject({ method: 'POST', url: '/practice/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token }, payload: { note: 'from the tarball' } })
const read = await app.inject({ method: 'GET', url: '/practice/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token } })
const mine = await app.inject({ method: 'GET', url: '/mine', headers: { 'x-challenger': guid } })
const docs = await app.inject({ method: 'GET', url: '/practice/docs/json' })
const style = await app.inject({ method: 'GET', url: '/practice/gui/style.css' })
const script = await app.inject({ method: 'GET', url: '/practice/gui/refresh.js' })
const files = [style, script].map(res => [res.statusCode, res.headers['content-type'], res.body.length > 100])
console.log(JSON.stringify({ write: write.json(), read: read.json(), readStatus: read.statusCode, mine: mine.json(), mineEcho: mine.headers['x-challenger'] ?? null, docs: docs.statusCode, files }))
await app.close()
`)
  const flow = await run(process.execPath, ['host.mjs'], { cwd: dir })
  t.same(JSON.parse(flow.stdout), {
    write: { note: 'from ' },
    read: { note: 'from ' },
    readStatus: 200,
    mine: { host: true },
    mineEcho: null,
    docs: 200,
    files: [[200, 'text/css; charset=utf-8', true], [200, 'text/javascript; charset=utf-8', true]]
  }, 'the pages\' files (public/) come with it')

  // The Redis store's scripts (.lua files beside its modules) come with it: a store that cannot find
  // them would throw as the app starts. Redis itself is not there: the app starts all the same, and says 503.
  await writeFile(join(dir, 'redis.mjs'), `
import Fastify from 'fastify'
import apiChallenges from '${pkg.name}'
const app = Fastify()
await app.register(apiChallenges, { redisUrl: 'redis://127.0.0.1:1' })
console.log((await app.inject({ method: 'GET', url: '/heartbeat' })).statusCode)
await app.close()
`)
  t.equal((await run(process.execPath, ['redis.mjs'], { cwd: dir })).stdout.trim(), '503', 'the Redis store\'s scripts are in the package')

  // The docs' plain-JavaScript embed example (its first js block under "In JavaScript"), verbatim but for a free port.
  const readmeExample = block(embedding, '## In JavaScript', 'js')
  t.match(readmeExample, /^import Fastify from 'fastify'\nimport apiChallenges from 'api-challenges-fastify'\n/, 'the docs\' example, found')
  t.equal(readmeExample.split('{ port: 3000 }').length, 2, 'the one change: port 0, not 3000')
  await writeFile(join(dir, 'index.js'), readmeExample.replace('{ port: 3000 }', '{ port: 0 }'))
  const example = spawn(process.execPath, ['index.js'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] })
  t.teardown(() => { example.kill() })
  let logged = ''
  const served = await new Promise<string>((resolve, reject) => {
    example.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      logged += chunk
      const found = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(logged)
      if (found !== null) resolve(found[1] as string)
    })
    example.stderr.setEncoding('utf8').on('data', (chunk: string) => { logged += chunk })
    example.on('exit', code => reject(new Error(`the docs' example exited with ${code}: ${logged}`)))
  })
  t.same(await (await fetch(`${served}/`)).json(), { course: 'API testing 101' }, "the host's own route")
  const session = await fetch(`${served}/practice/challenger`, { method: 'POST' })
  t.equal(session.status, 201)
  const issued = await fetch(`${served}/practice/secret/token`, {
    method: 'POST',
    headers: { 'x-challenger': session.headers.get('x-challenger') as string, authorization: 'Basic ' + Buffer.from('admin:course-secret').toString('base64') }
  })
  t.equal(issued.status, 201, "the example's password is the one that works")
  t.equal((await fetch(`${served}/practice/docs/json`)).status, 200)
  example.kill('SIGTERM')
  await once(example, 'exit')

  // The docs' TypeScript example (the ts block under "In TypeScript"), with the docs' tsconfig.json and
  // commands as written: TypeScript installed, the types checked, the example compiled and run; and run
  // as it is where Node strips types (22.18 and later, 24).
  const typed = block(embedding, '## In TypeScript', 'ts')
  t.match(typed, /^import Fastify from 'fastify'\nimport apiChallenges, \{ type ApiChallengesOptions \} from 'api-challenges-fastify'\n/, 'the docs\' TypeScript example, found')
  t.equal(typed.split('{ port: 3000 }').length, 2, 'the one change: port 0, not 3000')
  await writeFile(join(dir, 'index.ts'), typed.replace('{ port: 3000 }', '{ port: 0 }'))
  await writeFile(join(dir, 'tsconfig.json'), block(embedding, '## In TypeScript', 'json'))
  const steps = commands(block(embedding, '## In TypeScript', 'sh'))
  t.same(steps, ['npm install --save-dev typescript@6', 'npx tsc --noEmit', 'npx tsc', 'node index.js'], 'the docs\' TypeScript commands, found')
  t.same(JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')).devDependencies, undefined, 'no TypeScript before its install')
  await shell(steps[0] as string, dir)
  t.equal(JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')).devDependencies?.typescript, `^${versionOf('typescript')}`)
  t.same(await shell(steps[1] as string, dir), { cwd: dir, stdout: '' }, 'npx tsc --noEmit: the types are right, and it says nothing')
  t.match(await readFile(join(dir, 'index.js'), 'utf8'), /^import Fastify from 'fastify'\nimport apiChallenges from 'api-challenges-fastify'\n/, 'and writes nothing')
  await shell(steps[2] as string, dir)
  t.match(await readFile(join(dir, 'index.js'), 'utf8'), /const options = \{ password: 'course-secret', mode: 'multi' \}/, 'npx tsc: index.js compiled from index.ts')
  const ways: Array<[string, string]> = [['compiled by tsc, run as the docs say', 'index.js']]
  if ((process.features as { typescript?: unknown }).typescript !== undefined) ways.push(['as it is', 'index.ts'])
  for (const [way, file] of ways) {
    const typedExample = spawn(process.execPath, [file], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] })
    t.teardown(() => { typedExample.kill() })
    let said = ''
    const at = await new Promise<string>((resolve, reject) => {
      typedExample.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        said += chunk
        const found = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(said)
        if (found !== null) resolve(found[1] as string)
      })
      typedExample.stderr.setEncoding('utf8').on('data', (chunk: string) => { said += chunk })
      typedExample.on('exit', code => reject(new Error(`the TypeScript example (${way}) exited with ${code}: ${said}`)))
    })
    t.same(await (await fetch(`${at}/`)).json(), { course: 'API testing 101' }, `the TypeScript example, ${way}: the host's own route`)
    t.equal((await fetch(`${at}/practice/challenger`, { method: 'POST' })).status, 201, `and the practice target under /practice (${way})`)
    typedExample.kill('SIGTERM')
    await once(typedExample, 'exit')
  }
  // A wrong type is not silent: npx tsc --noEmit fails, naming it.
  await writeFile(join(dir, 'index.ts'), typed.replace("mode: 'multi'", "mode: 'many'"))
  const wrong = await shell(steps[1] as string, dir).then(() => ({ stdout: 'no error' }), (error: { stdout: string }) => error)
  t.match(wrong.stdout, /^index\.ts\(7,\d+\): error TS2322: Type '"many"' is not assignable to type '"multi" \| "single" \| undefined'/m, 'npx tsc --noEmit finds a wrong option')

  // CommonJS: require() loads the ES module (require(esm), Node 20.19+, 22.12+ and 24). Fastify takes
  // what require() returns as it is (it unwraps a module's default export) or its .default, and the
  // named exports are there.
  await writeFile(join(dir, 'require.cjs'), `
const Fastify = require('fastify')
const apiChallenges = require('${pkg.name}')
const { SINGLE_PLAYER_GUID, MemoryStore } = require('${pkg.name}')
async function heartbeat (plugin) {
  const app = Fastify()
  await app.register(plugin, { prefix: '/practice', mode: 'single', store: new MemoryStore() })
  const res = await app.inject({ method: 'POST', url: '/practice/challenger' })
  await app.close()
  return [res.statusCode, res.headers['x-challenger']]
}
;(async () => {
  console.log(JSON.stringify({ asRequired: await heartbeat(apiChallenges), asDefault: await heartbeat(apiChallenges.default), guid: SINGLE_PLAYER_GUID }))
})()
`)
  const required = await run(process.execPath, ['require.cjs'], { cwd: dir })
  const guid = '00000000-0000-4000-8000-000000000001'
  t.same(JSON.parse(required.stdout), { asRequired: [201, guid], asDefault: [201, guid], guid }, `require() works on ${process.version}`)
  t.equal(required.stderr, '', 'and warns of nothing')

  // The types come with it: the host's TypeScript compiles against the package's declarations, and
  // a wrong option type does not. One compiler run for both files (each run loads Fastify's and
  // Node's types anew): its errors must all be bad.ts's.
  await writeFile(join(dir, 'tsconfig.check.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: true, types: [] }, files: ['host.ts', 'bad.ts'] }))
  await writeFile(join(dir, 'bad.ts'), `import apiChallenges from '${pkg.name}'\nimport Fastify from 'fastify'\nawait Fastify().register(apiChallenges, { noteMaxLength: 'long' })\n`)
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')
  const checked = await run(process.execPath, [tsc, '-p', 'tsconfig.check.json'], { cwd: dir }).then(() => ({ stdout: '' }), (error: { stdout: string }) => error)
  t.same([...new Set(checked.stdout.match(/^[^\s(]+(?=\(\d+,\d+\): error)/gm))], ['bad.ts'], 'the host compiles: every error is in bad.ts')
  t.match(checked.stdout, /^bad\.ts\(3,\d+\): error TS2769[^]*ApiChallengesOptions[^]*Type 'string' is not assignable to type 'number'/m, 'a wrong option type does not')

  // The bin: the same server, settings and start-up message as npm start.
  const bin = spawn(join(dir, 'node_modules', '.bin', pkg.name as string), [], { cwd: dir, env: { ...process.env, PORT: '0', LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  const url = await new Promise<string>((resolve, reject) => {
    bin.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk
      const found = /ready: curl -i -X POST (http:\/\/127\.0\.0\.1:\d+)\/challenger/.exec(out)
      if (found !== null) resolve(found[1] as string)
    })
    bin.on('exit', code => reject(new Error(`the bin exited with ${code}: ${out}`)))
  })
  t.equal((await fetch(`${url}/heartbeat`)).status, 204)
  bin.kill('SIGTERM')
  const [code] = await once(bin, 'exit')
  t.equal(code, 0)

  // Through npx, as docs/embedding.md shows it: a SIGTERM to npx stops the server, as for npm start.
  const npx = spawn('npx', ['--yes', '--prefer-offline', '--package', `../api-challenges-fastify/${tarball}`, pkg.name as string], {
    cwd: dir, env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', SHUTDOWN_DRAIN_MS: '0' }, stdio: ['ignore', 'pipe', 'pipe']
  })
  let npxOut = ''
  const npxUrl = await new Promise<string>((resolve, reject) => {
    npx.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      npxOut += chunk
      const found = /ready: curl -i -X POST (http:\/\/127\.0\.0\.1:\d+)\/challenger/.exec(npxOut)
      if (found !== null) resolve(found[1] as string)
    })
    npx.on('exit', code => reject(new Error(`npx exited with ${code}: ${npxOut}`)))
  })
  const server = Number(/"pid":(\d+)/.exec(npxOut)?.[1])
  const alive = (): boolean => { try { return process.kill(server, 0) } catch { return false } }
  t.teardown(() => { if (alive()) process.kill(server, 'SIGKILL') })
  t.not(server, npx.pid, 'the server runs under npx, not as npx')
  t.equal((await fetch(`${npxUrl}/heartbeat`)).status, 204)
  npx.kill('SIGTERM')
  await once(npx, 'exit')
  const end = Date.now() + 20_000
  while (alive() && Date.now() < end) await new Promise(resolve => setTimeout(resolve, 50))
  t.notOk(alive(), 'the server has exited')
  await t.rejects(fetch(`${npxUrl}/heartbeat`), 'and answers no more')
})
