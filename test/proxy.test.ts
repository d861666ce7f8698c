// The proxy recipes of docs/operations.md, run as written (docs/proxy/nginx.conf and
// docs/proxy/haproxy.cfg, only their ports changed): three instances as processes sharing one
// redis-server, behind Debian's nginx and HAProxy, with learners' requests flowing through while
// Redis restarts, an instance is killed, and an instance answers 503 alone.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import t, { type Test } from 'tap'
import { root, startProcess, waitForReady } from './processes.js'
import { freePort, redisMissing, redisServer, type RedisServer } from './redis-server.js'
import { until, WAIT_MS } from './until.js'

// Three processes compiling TypeScript as they start, and four Redis restarts: minutes on a busy machine, so its own limit (600 s, as .taprc's), whatever the command line asks.
t.setTimeout(Number(process.env.PROXY_TEST_TIMEOUT ?? 600_000))

const ADMIN_TOKEN = 'proxy-test-admin-token-0123456789'
/** The recipes' instances, which the test's take the place of. */
const RECIPE_PORTS = [3001, 3002, 3003]
/** How long Redis is away: a restart, as an operator's `systemctl restart redis` takes. */
const BLIP_MS = 2000
/** After Redis answers again, the instances must be serving within this (generous, for a loaded machine). */
const RECOVERY_BOUND_MS = 3000

/** The binary's path, or undefined: on PATH, else where Debian puts it (/usr/sbin, off a plain user's PATH). */
function binary (name: string, variable: string): string | undefined {
  const candidates = [process.env[variable] ?? name, `/usr/sbin/${name}`]
  return candidates.find(candidate => spawnSync(candidate, ['-v']).status === 0)
}

/** `text` with `from` replaced by `to` everywhere; throws if `from` is not in it (the recipe changed: so must the test). */
function replaced (text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error(`the recipe no longer has ${JSON.stringify(from)}: update test/proxy.test.ts`)
  return text.replaceAll(from, to)
}

interface Instance { port: number, child: ChildProcess, output: () => { stdout: string, stderr: string } }

/** An instance of the service, as the recipe starts it, on `port` (0: any), its Redis at `redisUrl`. */
async function instance (port: number, redisUrl: string): Promise<Instance> {
  const { child, output } = startProcess({
    PORT: String(port),
    REDIS_URL: redisUrl,
    TRUST_PROXY: '1',
    MAX_CONNECTIONS_PER_CLIENT: '0',
    // The test's learners all come from 127.0.0.1 and create sessions as fast as they can.
    CREATION_RATE_LIMIT: '0',
    ADMIN_TOKEN,
    // info: the start-up line says it is ready.
    LOG_LEVEL: 'info'
  })
  try {
    const ready = waitForReady(child)
    const late = delay(60_000).then(() => { throw new Error(`not ready within 60 s: ${output().stderr}`) })
    return { port: Number(await Promise.race([ready, late])), child, output }
  } catch (error) {
    await kill(child)
    throw error
  }
}

async function kill (child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  child.kill(signal)
  await exited
}

/** What a learner got: the service's answer, the service's JSON 503, or something else (the proxy's own page, a failure). */
type Kind = 'ok' | 'json503' | 'other'
interface Answer { sent: number, received: number, kind: Kind, status: number, body: string }

/** The service's error body: {"errorMessages": ["…"]} as JSON (plugins/errors.ts). */
function serviceError (contentType: string | null, body: string): boolean {
  if (contentType?.startsWith('application/json') !== true) return false
  try {
    const parsed = JSON.parse(body) as { errorMessages?: unknown }
    return Array.isArray(parsed.errorMessages) && parsed.errorMessages.length > 0 && parsed.errorMessages.every(m => typeof m === 'string')
  } catch {
    return false
  }
}

async function ask (url: string, init: RequestInit = {}): Promise<Answer> {
  const sent = performance.now()
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(WAIT_MS) })
    const body = await res.text()
    const kind: Kind = res.status < 300 ? 'ok' : res.status === 503 && serviceError(res.headers.get('content-type'), body) ? 'json503' : 'other'
    return { sent, received: performance.now(), kind, status: res.status, body: body.slice(0, 200) }
  } catch (error) {
    return { sent, received: performance.now(), kind: 'other', status: 0, body: String(error) }
  }
}

/**
 * Learners through the proxy at `base`, each with a session, asking for their progress and now and
 * then creating a session (a POST), one request at a time each, until stop() resolves with every answer.
 */
async function learners (base: string, count = 6) {
  const guids: string[] = []
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${base}/challenger`, { method: 'POST' })
    if (res.status !== 201) throw new Error(`POST /challenger through the proxy: ${res.status}`)
    guids.push(res.headers.get('x-challenger') as string)
  }
  const answers: Answer[] = []
  const state = { running: true }
  const loops = guids.map(async guid => {
    for (let n = 0; state.running; n++) {
      answers.push(n % 4 === 3
        ? await ask(`${base}/challenger`, { method: 'POST' })
        : await ask(`${base}/challenges`, { headers: { 'x-challenger': guid } }))
    }
  })
  return {
    answers,
    stop: async (): Promise<Answer[]> => {
      state.running = false
      await Promise.all(loops)
      return answers
    }
  }
}

const ms = (n: number): string => `${Math.round(n)} ms`

/** What learners saw of a Redis restart through the proxy at `base`: the answers, and when Redis was ready again. */
async function redisRestart (base: string, redis: RedisServer) {
  const flow = await learners(base)
  await until('serving', () => flow.answers.filter(a => a.kind === 'ok').length >= 20)
  const stopped = performance.now()
  await redis.stop()
  await until('503 through the proxy', () => flow.answers.some(a => a.sent > stopped && a.kind !== 'ok'))
  // The outage's length, not an ordering: Redis stays away for BLIP_MS.
  await delay(Math.max(0, BLIP_MS - (performance.now() - stopped)))
  await redis.start()
  const ready = performance.now()
  // Done once learners have been served for a whole second without a fault (the old recipe's
  // nginx gives its 502 page for fail_timeout, 5 s, after Redis is back).
  await until('served again for 1 s', () => {
    const faults = flow.answers.filter(a => a.kind !== 'ok')
    const last = faults[faults.length - 1]
    return last === undefined || performance.now() - last.received > 1000
  })
  const answers = await flow.stop()
  const during = answers.filter(a => a.received > stopped)
  const span = (kind: Kind) => {
    const these = during.filter(a => a.kind === kind)
    if (these.length === 0) return { count: 0, ms: 0, afterReady: 0 }
    return {
      count: these.length,
      ms: Math.max(...these.map(a => a.received)) - Math.min(...these.map(a => a.received)),
      // A request sent this long after Redis was ready still met the fault.
      afterReady: Math.max(0, Math.max(...these.map(a => a.sent)) - ready)
    }
  }
  return { during, others: during.filter(a => a.kind === 'other'), json503: span('json503'), proxyPages: span('other'), outage: ready - stopped }
}

/** Faults one instance alone meets: killed, then answering 503 alone (its Redis unreachable). Restores it. */
async function oneInstanceFaults (t: Test, base: string, instances: Instance[], redisUrl: string): Promise<void> {
  const broken = instances[0] as Instance
  await kill(broken.child)
  {
    const flow = await learners(base, 4)
    await until('200 answers', () => flow.answers.length >= 200)
    const answers = await flow.stop()
    t.same(answers.filter(a => a.kind !== 'ok').slice(0, 3), [], `one instance killed: ${answers.length} answers, all the service's, from the other two`)
  }
  // An instance whose Redis is unreachable (its own link broken; the others are fine): every
  // request it takes is 503, nothing applied, so the proxy sends it to another, a POST too.
  const nowhere = `redis://127.0.0.1:${await freePort()}`
  const alone = await instance(broken.port, nowhere)
  try {
    t.equal((await fetch(`http://127.0.0.1:${alone.port}/challenges`, { headers: { 'x-challenger': 'x' } })).status, 503, 'that instance answers 503 when asked directly')
    const flow = await learners(base, 4)
    await until('200 answers', () => flow.answers.length >= 200)
    const answers = await flow.stop()
    t.same(answers.filter(a => a.kind !== 'ok').slice(0, 3), [], `one instance answering 503 alone: ${answers.length} answers, all the service's normal ones, POSTs included`)
  } finally {
    // Put back as it was, for the next proxy.
    await kill(alone.child)
    instances[0] = await instance(broken.port, redisUrl)
  }
}

/** /metrics and /admin: reachable on an instance, the proxy's own 404 through the proxy, however the path is spelled. */
async function adminKeptOff (t: Test, base: string, direct: string): Promise<void> {
  const auth = { authorization: `Bearer ${ADMIN_TOKEN}` }
  for (const path of ['/metrics', '/admin', '/admin/summary', '/admin/sessions', '/%6Detrics', '/%61dmin/summary']) {
    const straight = await fetch(`${direct}${path}`, { headers: auth })
    t.equal(straight.status, 200, `${path} on an instance directly`)
    const res = await fetch(`${base}${path}`, { headers: auth })
    const body = await res.text()
    t.equal(res.status, 404, `${path} through the proxy`)
    t.notOk(serviceError(res.headers.get('content-type'), body), `${path}: the proxy's own 404, the instance never asked`)
    t.match(body, /404 Not Found/, `${path}: the proxy's page says 404 Not Found`)
  }
  t.equal((await fetch(`${base}/heartbeat`)).status, 204, 'the learners\' routes pass')
}

/** Starts `command` and waits until the proxy at `base` passes the heartbeat through. */
async function proxy (t: Test, command: string, args: string[], base: string): Promise<ChildProcess> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { out += chunk })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { out += chunk })
  // SIGTERM: nginx's master stops its workers before it exits (SIGKILL would leave them serving).
  t.teardown(() => kill(child, 'SIGTERM'))
  const exited = once(child, 'exit').then(([code]) => { throw new Error(`${command} exited with ${code}: ${out}`) })
  await Promise.race([exited, until('passing the heartbeat', async () => (await fetch(`${base}/heartbeat`)).status === 204)])
  exited.catch(() => {})
  return child
}

const nginx = binary('nginx', 'NGINX')
const haproxy = binary('haproxy', 'HAPROXY')

// As the other tests that need programs beside Node: missing in CI is a failure; elsewhere they say so and do not run.
const inCi = process.env.CI === 'true'
const notInstalled = (name: string): string => `${name} is not installed (apt-get install ${name}); CI installs it and runs this test`

if (redisMissing !== false && inCi) {
  t.fail(redisMissing)
} else {
  t.test('the proxy recipes', { skip: redisMissing }, async t => {
    const redis = await redisServer()
    t.teardown(() => redis.remove())
    const instances = await Promise.all(RECIPE_PORTS.map(() => instance(0, redis.url)))
    t.teardown(() => Promise.all(instances.map(i => kill(i.child))))
    const dir = await mkdtemp(join(tmpdir(), 'api-challenges-proxy-'))
    // nginx's workers (nobody, when the master is root) write request bodies under it.
    await chmod(dir, 0o755)
    t.teardown(() => rm(dir, { recursive: true, force: true }))
    /** The recipe's text with the test's instances for 127.0.0.1:3001–3003, and its listener. */
    const withPorts = (text: string, listen: [string, string]): string => RECIPE_PORTS.reduce(
      (text, port, i) => replaced(text, `127.0.0.1:${port}`, `127.0.0.1:${(instances[i] as Instance).port}`),
      replaced(text, ...listen))

    t.test('nginx', { skip: nginx === undefined && !inCi ? notInstalled('nginx') : false }, async t => {
      if (nginx === undefined) {
        t.fail(notInstalled('nginx'))
        return
      }
      const port = await freePort()
      const base = `http://127.0.0.1:${port}`
      /** A whole nginx configuration around `site` (the recipe: what goes in nginx's http block). */
      const start = async (name: string, site: string): Promise<ChildProcess> => {
        const prefix = join(dir, name)
        await writeFile(`${prefix}-site.conf`, site)
        await writeFile(`${prefix}.conf`, [
          'daemon off;',
          `pid ${prefix}.pid;`,
          `error_log ${prefix}-error.log warn;`,
          'events {}',
          'http {',
          '  access_log off;',
          ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp => `  ${temp}_temp_path ${prefix}-${temp};`),
          `  include ${prefix}-site.conf;`,
          '}'
        ].join('\n'))
        return await proxy(t, nginx, ['-e', `${prefix}-error.log`, '-c', `${prefix}.conf`], base)
      }
      const listen: [string, string] = ['listen 80;', `listen 127.0.0.1:${port};`]

      // Before: the example docs/operations.md gave, with the proxy_next_upstream it suggested.
      const old = await start('old', withPorts(`upstream practice {
  server 127.0.0.1:3001 max_fails=1 fail_timeout=5s;
  server 127.0.0.1:3002 max_fails=1 fail_timeout=5s;
  server 127.0.0.1:3003 max_fails=1 fail_timeout=5s;
}
server {
  listen 80;
  location / {
    proxy_pass http://practice;
    proxy_next_upstream error timeout http_503;
  }
}
`, listen))
      const before = await redisRestart(base, redis)
      await kill(old, 'SIGTERM')
      t.ok(before.proxyPages.count > 0, 'the old recipe: nginx\'s own page during a Redis restart (why the recipe changed)')
      t.comment(`old recipe, Redis away ${ms(before.outage)}: nginx's 502 page ${before.proxyPages.count} times over ${ms(before.proxyPages.ms)} (the last sent ${ms(before.proxyPages.afterReady)} after Redis was ready); the service's JSON 503 ${before.json503.count} times over ${ms(before.json503.ms)}`)

      const recipe = await readFile(join(root, 'docs/proxy/nginx.conf'), 'utf8')
      await start('recipe', withPorts(recipe, listen))
      const after = await redisRestart(base, redis)
      t.same(after.others.slice(0, 3), [], 'the recipe: during a Redis restart, every answer is the service\'s own (normal, or its JSON 503)')
      t.ok(after.json503.count > 0, 'learners met the outage as the service\'s 503')
      t.ok(after.json503.afterReady <= RECOVERY_BOUND_MS, `503s end ${ms(after.json503.afterReady)} after Redis is ready (at most ${RECOVERY_BOUND_MS} ms)`)
      t.comment(`recipe, Redis away ${ms(after.outage)}: nginx's 502 page ${after.proxyPages.count} times; the service's JSON 503 ${after.json503.count} times over ${ms(after.json503.ms)}, the last sent ${ms(after.json503.afterReady)} after Redis was ready`)

      await adminKeptOff(t, base, `http://127.0.0.1:${(instances[1] as Instance).port}`)
      await oneInstanceFaults(t, base, instances, redis.url)
    })

    t.test('HAProxy', { skip: haproxy === undefined && !inCi ? notInstalled('haproxy') : false }, async t => {
      if (haproxy === undefined) {
        t.fail(notInstalled('haproxy'))
        return
      }
      const port = await freePort()
      const base = `http://127.0.0.1:${port}`
      const recipe = await readFile(join(root, 'docs/proxy/haproxy.cfg'), 'utf8')
      await writeFile(join(dir, 'haproxy.cfg'), withPorts(recipe, ['bind :80', `bind 127.0.0.1:${port}`]))
      // -db: in the foreground, not as a daemon.
      await proxy(t, haproxy, ['-db', '-f', join(dir, 'haproxy.cfg')], base)
      const restart = await redisRestart(base, redis)
      t.same(restart.others.slice(0, 3), [], 'during a Redis restart, every answer is the service\'s own (normal, or its JSON 503)')
      t.ok(restart.json503.count > 0, 'learners met the outage as the service\'s 503')
      t.ok(restart.json503.afterReady <= RECOVERY_BOUND_MS, `503s end ${ms(restart.json503.afterReady)} after Redis is ready (at most ${RECOVERY_BOUND_MS} ms)`)
      t.comment(`HAProxy recipe, Redis away ${ms(restart.outage)}: HAProxy's own page ${restart.proxyPages.count} times; the service's JSON 503 ${restart.json503.count} times over ${ms(restart.json503.ms)}, the last sent ${ms(restart.json503.afterReady)} after Redis was ready`)

      await adminKeptOff(t, base, `http://127.0.0.1:${(instances[1] as Instance).port}`)
      await oneInstanceFaults(t, base, instances, redis.url)
    })
  })
}
