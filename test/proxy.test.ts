// The proxy recipes of docs/operations.md, run as written (docs/proxy/nginx.conf and
// docs/proxy/haproxy.cfg, only their ports changed): three instances as processes sharing one
// redis-server, behind Debian's nginx and HAProxy, with learners' requests flowing through while
// Redis restarts, an instance is killed, and an instance answers 503 alone; what the proxies log
// meanwhile. First, what an operator's tools see of an instance while its Redis hangs (/metrics,
// /livez, /readyz) and while it drains on SIGTERM.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { Redis } from 'ioredis'
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
/** Scrapes of /metrics while Redis hangs, each to be answered within SCRAPE_BOUND_MS (before issue 50: 3.0–4.0 s each here, 1.5–4 s in the issue). */
const SCRAPES = 5
const SCRAPE_BOUND_MS = 1000

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

/** An instance of the service, as the recipe starts it, on `port` (0: any), its Redis at `redisUrl`; `env`: more settings. */
async function instance (port: number, redisUrl: string, env: Record<string, string> = {}): Promise<Instance> {
  const { child, output } = startProcess({
    PORT: String(port),
    REDIS_URL: redisUrl,
    TRUST_PROXY: '1',
    MAX_CONNECTIONS_PER_CLIENT: '0',
    // The test's learners all come from 127.0.0.1 and create sessions as fast as they can.
    CREATION_RATE_LIMIT: '0',
    ADMIN_TOKEN,
    // info: the start-up line says it is ready.
    LOG_LEVEL: 'info',
    ...env
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
    return { sent, received: performance.now(), kind: 'other', status: 0, body: `${String(error)}: ${String((error as Error).cause)}` }
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

/** Answers through the proxy while one instance is dead: enough for a proxy that logs each request sent its way to log ~200 lines. */
const WHILE_DEAD = 600
/** nginx's error-log lines (error and warn) about a dead instance: two when it is first tried, two more each time fail_timeout (10 s) lets it be tried again. */
const deadLinesBound = (ms: number): number => 2 * (1 + Math.floor(ms / 10_000))

/**
 * Faults one instance alone meets: killed, then answering 503 alone (its Redis unreachable). Restores it.
 * `errorLog`, for nginx: its error log's lines, of which the dead instance may add only a few.
 */
async function oneInstanceFaults (t: Test, base: string, instances: Instance[], redisUrl: string, errorLog?: () => Promise<string[]>): Promise<void> {
  const broken = instances[0] as Instance
  const linesBefore = (await errorLog?.())?.length ?? 0
  await kill(broken.child)
  {
    const killed = performance.now()
    const flow = await learners(base, 4)
    await until(`${WHILE_DEAD} answers`, () => flow.answers.length >= WHILE_DEAD)
    const answers = await flow.stop()
    const bound = deadLinesBound(performance.now() - killed)
    t.same(answers.filter(a => a.kind !== 'ok').slice(0, 3), [], `one instance killed: ${answers.length} answers, all the service's, from the other two`)
    if (errorLog !== undefined) {
      const added = (await errorLog()).slice(linesBefore)
      const dead = added.filter(line => line.includes(`:${broken.port}`))
      t.ok(dead.length <= bound, `the dead instance: ${dead.length} lines in nginx's error log over ${answers.length} answers in ${ms(performance.now() - killed)} (at most ${bound})`)
      t.ok(dead.length >= 1, 'and it is said')
      t.comment(`nginx's error log while one instance was dead, ${answers.length} answers: ${added.length} lines, ${dead.length} naming it:\n${dead.join('\n')}`)
    }
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

/** The nginx recipe as it was until issue 50: an instance never left out, so a dead one is tried, and logged, on every request sent its way. */
const NOISY_RECIPE = `upstream practice {
  server 127.0.0.1:3001 max_fails=0;
  server 127.0.0.1:3002 max_fails=0;
  server 127.0.0.1:3003 max_fails=0;
  keepalive 32;
  keepalive_timeout 4s;
}
server {
  listen 80;
  location / {
    proxy_pass http://practice;
    proxy_http_version 1.1;
    proxy_set_header Connection "";
    proxy_next_upstream error timeout http_503 non_idempotent;
    proxy_connect_timeout 2s;
  }
}
`

/** Kills the first instance, lets WHILE_DEAD answers go by, counts the lines `errorLog` gained that name it, and restores it. */
async function deadInstanceLines (base: string, instances: Instance[], redisUrl: string, errorLog: () => Promise<string[]>): Promise<{ answers: number, lines: number }> {
  const broken = instances[0] as Instance
  const before = (await errorLog()).length
  await kill(broken.child)
  try {
    const flow = await learners(base, 4)
    await until(`${WHILE_DEAD} answers`, () => flow.answers.length >= WHILE_DEAD)
    const answers = await flow.stop()
    return { answers: answers.length, lines: (await errorLog()).slice(before).filter(line => line.includes(`:${broken.port}`)).length }
  } finally {
    instances[0] = await instance(broken.port, redisUrl)
  }
}

/** Starts `command` and waits until the proxy at `base` passes the heartbeat through; `output`: what it wrote so far. */
async function proxy (t: Test, command: string, args: string[], base: string): Promise<{ child: ChildProcess, output: () => string }> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { out += chunk })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { out += chunk })
  // SIGTERM: nginx's master stops its workers before it exits (SIGKILL would leave them serving).
  t.teardown(() => kill(child, 'SIGTERM'))
  const exited = once(child, 'exit').then(([code]) => { throw new Error(`${command} exited with ${code}: ${out}`) })
  await Promise.race([exited, until('passing the heartbeat', async () => (await fetch(`${base}/heartbeat`)).status === 204)])
  exited.catch(() => {})
  return { child, output: () => out }
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
    t.test('an instance while its Redis hangs (SIGSTOP): /metrics answers at once, /livez 200, /readyz 503; ready again once Redis is back', async t => {
      const direct = `http://127.0.0.1:${(instances[1] as Instance).port}`
      t.same(await (await fetch(`${direct}/readyz`)).json(), { status: 'ok' })
      const client = new Redis(redis.url)
      const pid = Number(/^process_id:(\d+)/m.exec(await client.info('server'))?.[1])
      client.disconnect()
      process.kill(pid, 'SIGSTOP')
      try {
        await until('/readyz 503', async () => (await fetch(`${direct}/readyz`)).status === 503)
        t.same(await (await fetch(`${direct}/readyz`)).json(), { status: 'unavailable', reason: 'store unavailable' })
        t.equal((await fetch(`${direct}/livez`)).status, 200, '/livez: the process is fine')
        t.equal((await fetch(`${direct}/heartbeat`)).status, 503, 'the heartbeat keeps its 503')
        const times: number[] = []
        let text = ''
        for (let i = 0; i < SCRAPES; i++) {
          const sent = performance.now()
          const res = await fetch(`${direct}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, signal: AbortSignal.timeout(WAIT_MS) })
          text = await res.text()
          times.push(performance.now() - sent)
          t.equal(res.status, 200, `scrape ${i + 1}`)
        }
        const slowest = Math.max(...times)
        t.ok(slowest <= SCRAPE_BOUND_MS, `${SCRAPES} scrapes with Redis hanging: ${times.map(ms).join(', ')} (each at most ${SCRAPE_BOUND_MS} ms)`)
        t.match(text, /^api_challenges_store_up 0$/m)
        t.match(text, /^api_challenges_sessions_live \d+$/m, 'the last count, kept')
        const age = Number(/^api_challenges_store_counts_age_seconds (\S+)$/m.exec(text)?.[1])
        t.ok(age > 0, `with its age: ${age} s`)
      } finally {
        process.kill(pid, 'SIGCONT')
      }
      await until('every instance ready again', async () => {
        const statuses = await Promise.all(instances.map(async i => (await fetch(`http://127.0.0.1:${i.port}/readyz`)).status))
        return statuses.every(status => status === 200)
      })
    })

    t.test('SIGTERM with Redis: /readyz 503 "draining" at once and /livez 200 through the drain; the last line says the server closed', async t => {
      const draining = await instance(0, redis.url, { SHUTDOWN_DRAIN_MS: '3000' })
      t.teardown(() => kill(draining.child))
      const direct = `http://127.0.0.1:${draining.port}`
      t.equal((await fetch(`${direct}/readyz`)).status, 200)
      const closed = once(draining.child, 'close')
      draining.child.kill('SIGTERM')
      await until('the drain begun', () => draining.output().stdout.includes('"msg":"draining for'))
      const ready = await fetch(`${direct}/readyz`)
      t.equal(ready.status, 503)
      t.same(await ready.json(), { status: 'unavailable', reason: 'draining' })
      t.equal((await fetch(`${direct}/livez`)).status, 200)
      const [code] = await closed
      t.equal(code, 0)
      const said = draining.output().stdout.trim().split('\n').map(line => (JSON.parse(line) as { msg: string }).msg)
      t.equal(said.at(-1), 'server closed: listener, connections and session store; the process exits', 'the last line')
    })

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
        return (await proxy(t, nginx, ['-e', `${prefix}-error.log`, '-c', `${prefix}.conf`], base)).child
      }
      const errorLog = async (name: string): Promise<string[]> => (await readFile(join(dir, `${name}-error.log`), 'utf8')).split('\n').filter(line => line !== '')
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

      // Before, too: the recipe as it was until issue 50 (max_fails=0, never leaving an instance out), with one instance dead.
      const noisy = await start('noisy', withPorts(NOISY_RECIPE, listen))
      const noisyDead = await deadInstanceLines(base, instances, redis.url, async () => await errorLog('noisy'))
      await kill(noisy, 'SIGTERM')
      t.ok(noisyDead.lines > 50, 'the recipe before: a line in nginx\'s error log per request sent to the dead instance (why the recipe changed)')
      t.comment(`recipe before, one instance dead: ${noisyDead.lines} lines in nginx's error log naming it over ${noisyDead.answers} answers`)

      const recipe = await readFile(join(root, 'docs/proxy/nginx.conf'), 'utf8')
      await start('recipe', withPorts(recipe, listen))
      await oneInstanceFaults(t, base, instances, redis.url, async () => await errorLog('recipe'))

      const logged = (await errorLog('recipe')).length
      const after = await redisRestart(base, redis)
      const restartLines = (await errorLog('recipe')).slice(logged)
      // Each instance is left out once, by as many requests as had its 503 in flight at that moment (six learners).
      t.ok(restartLines.length <= 18, `nginx's error log during a Redis restart: ${restartLines.length} lines for ${after.during.length} answers (at most 18)`)
      t.same(after.others.slice(0, 3), [], 'the recipe: during a Redis restart, every answer is the service\'s own (normal, or its JSON 503)')
      t.ok(after.json503.count > 0, 'learners met the outage as the service\'s 503')
      t.ok(after.json503.afterReady <= RECOVERY_BOUND_MS, `503s end ${ms(after.json503.afterReady)} after Redis is ready (at most ${RECOVERY_BOUND_MS} ms)`)
      t.comment(`recipe, Redis away ${ms(after.outage)}: nginx's 502 page ${after.proxyPages.count} times; the service's JSON 503 ${after.json503.count} times over ${ms(after.json503.ms)}, the last sent ${ms(after.json503.afterReady)} after Redis was ready; nginx's error log:\n${restartLines.join('\n')}`)

      await adminKeptOff(t, base, `http://127.0.0.1:${(instances[1] as Instance).port}`)
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
      const { output: log } = await proxy(t, haproxy, ['-db', '-f', join(dir, 'haproxy.cfg')], base)
      const restart = await redisRestart(base, redis)
      t.same(restart.others.slice(0, 3), [], 'during a Redis restart, every answer is the service\'s own (normal, or its JSON 503)')
      t.ok(restart.json503.count > 0, 'learners met the outage as the service\'s 503')
      t.ok(restart.json503.afterReady <= RECOVERY_BOUND_MS, `503s end ${ms(restart.json503.afterReady)} after Redis is ready (at most ${RECOVERY_BOUND_MS} ms)`)
      t.comment(`HAProxy recipe, Redis away ${ms(restart.outage)}: HAProxy's own page ${restart.proxyPages.count} times; the service's JSON 503 ${restart.json503.count} times over ${ms(restart.json503.ms)}, the last sent ${ms(restart.json503.afterReady)} after Redis was ready`)

      // The recipe's log, on stdout: a line per request (the instance that answered, its status), and
      // each instance leaving the ready ones while Redis was away, and coming back.
      const requestLines = log().split('\n').filter(line => / public practice\/[abc](-backup)? /.test(line))
      t.ok(requestLines.length >= restart.during.length, `HAProxy logged ${requestLines.length} requests`)
      // Redis away for over 2 s: every instance fails two checks a second apart.
      t.match(log(), /Server practice\/[abc] is DOWN, reason: Layer7 wrong status, code: 503/, 'and said when Redis\'s absence took an instance out')
      t.match(log(), /Server practice\/[abc] is UP/, 'and when it was back')
      t.comment(`HAProxy's log: ${requestLines.length} requests, ${requestLines.filter(line => / public practice\/[abc]-backup /.test(line)).length} of them answered by the backups while no instance was ready`)

      await adminKeptOff(t, base, `http://127.0.0.1:${(instances[1] as Instance).port}`)
      await oneInstanceFaults(t, base, instances, redis.url)
    })
  })
}
