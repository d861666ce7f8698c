// npm run bench: the service beside bare Fastify with the same CORS (issue 15), each in its own
// process on 127.0.0.1, measured on BENCH_PAIRS fresh pairs of processes, each running A B then B A
// with the same load (onFreshProcesses); then how throughput holds up with many live sessions, and
// memory per idle session (heap and Redis). It prints Markdown tables and asserts nothing on timings;
// it exits non-zero only when a server fails to start or a request errors.
// Settings: BENCH_SECONDS (per round, default 5), BENCH_PAIRS (default 3), BENCH_CONNECTIONS
// (default 50), BENCH_PIPELINING (default 1), BENCH_SPIN (default 1: the load generator's event loop
// never sleeps during a round, see spinWhile; 0 lets it), BENCH_PIN (default 1: with two or more cores and
// taskset, the servers run on core 0 and the load generator on core 1), BENCH_LOGGERS (default
// silent,info: the service's log levels to measure, each against the baseline's matching logger;
// BENCH_INFO_BASELINE, default info, see LOGGER_PAIRS),
// BENCH_SCALE (default 1; 0 skips the 1,000 / 100,000 / 1,000,000 session table, only runs it alone),
// BENCH_SCALE_SETTLE (default 10: seconds of unmeasured heartbeats after each filling of that table), BENCH_MEMORY
// (default 1; 0 skips memory per session), BENCH_REDIS_SESSIONS (default 100,000), BENCH_AGAINST
// (another build's dist/src/server.js: this build against that one, scenario by scenario, and
// nothing else), BENCH_THIS_ENV (with BENCH_AGAINST: settings for this build only, such as
// JOURNAL_SIZE=0 against a build from before the journal; comma-separated NAME=value), BENCH_COSTS
// (journal, metrics or both: only those on/off rows, at each log level, and nothing else),
// BENCH_NODE_FLAGS (node flags for every server, service and baselines alike; default none),
// BENCH_SCENARIOS (comma-separated, such as "POST /secret/note": only those of the four scenarios;
// default all).
import autocannon from 'autocannon'
import { execFileSync, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import type { MemoryReport } from './memory.js'
import { hasRedis, startRedis, type RedisServer } from './redis.js'
import { connections, createSessions, here, noteBody, pin, pipelining, rotating, round, nodeFlags, running, scenarioRequests, spinLoad, start, startService, stop, type Round, type Server, type Session, type Target } from './servers.js'
import { setting } from './settings.js'

const seconds = setting('BENCH_SECONDS', 5)
const pairs = setting('BENCH_PAIRS', 3)
const withScale = process.env.BENCH_SCALE !== '0'
const scaleOnly = process.env.BENCH_SCALE === 'only'
const withMemory = process.env.BENCH_MEMORY !== '0'
const against = process.env.BENCH_AGAINST ?? ''
// BENCH_COSTS=journal (or metrics, or redis, or several, comma-separated): only those on/off rows.
const costsOnly = (process.env.BENCH_COSTS ?? '').split(',').map(what => what.trim()).filter(what => what !== '')
const costsOf: readonly string[] = costsOnly.length > 0 ? costsOnly : ['journal', 'metrics']
const thisEnv: Record<string, string> = Object.fromEntries((process.env.BENCH_THIS_ENV ?? '').split(',').filter(pair => pair.includes('=')).map(pair => {
  const at = pair.indexOf('=')
  return [pair.slice(0, at).trim(), pair.slice(at + 1).trim()]
}))

/** The service's LOG_LEVEL and the baseline's logger beside it (BASELINE_LOGGER, see baseline-fastify.ts). */
const LOGGER_PAIRS: Record<string, string> = { silent: 'off', info: process.env.BENCH_INFO_BASELINE ?? 'info' }
const loggers = (process.env.BENCH_LOGGERS ?? 'silent,info').split(',').map(level => level.trim()).filter(level => level !== '')
if (!['info', 'info-child'].includes(LOGGER_PAIRS.info as string)) {
  process.stderr.write(`bench: BENCH_INFO_BASELINE must be info or info-child, got ${JSON.stringify(LOGGER_PAIRS.info)}\n`)
  process.exit(1)
}
if (loggers.length === 0 || loggers.some(level => LOGGER_PAIRS[level] === undefined)) {
  process.stderr.write(`bench: BENCH_LOGGERS must list some of ${Object.keys(LOGGER_PAIRS).join(', ')}, got ${JSON.stringify(process.env.BENCH_LOGGERS)}\n`)
  process.exit(1)
}
const SCENARIOS = scenarioRequests([]).map(([name]) => name)
const only = (process.env.BENCH_SCENARIOS ?? '').split(',').map(name => name.trim()).filter(name => name !== '')
if (only.some(name => !SCENARIOS.includes(name))) {
  process.stderr.write(`bench: BENCH_SCENARIOS must list some of ${SCENARIOS.join(', ')}, got ${JSON.stringify(process.env.BENCH_SCENARIOS)}\n`)
  process.exit(1)
}

/** Ratio targets of issue 15 (service req/s over baseline req/s, at least); the Redis row's is issue 56's (with the note write one round trip). */
const TARGET = { heartbeat: 0.90, notePost: 0.85, noteGet: 0.85, creation: 0.70, redis: 0.60, journal: 0.95, metrics: 0.95 }
/** Spread of req/s across session counts (max/min − 1, at most), heap and Redis bytes per idle session (at most). */
const SCALE_SPREAD = 0.05
const HEAP_BYTES = 250
const REDIS_BYTES = 300
/** Heap bytes per session with a full journal of 20 entries, at 100,000 sessions (issue 16). */
const JOURNAL_BYTES = 1000
/** Session counts of the scale table, and the authorized sessions the measured requests rotate over. */
const SCALE_SIZES = [1_000, 100_000, 1_000_000]
const ROTATION = 200
/** Seconds of unmeasured heartbeats after each filling of the scale table (BENCH_SCALE_SETTLE). */
const SCALE_SETTLE = setting('BENCH_SCALE_SETTLE', 10)

function progress (line: string): void {
  process.stderr.write(`bench: ${line}\n`)
}

function median (values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] as number : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2
}

/** The rounds of each target of the last alternate(), in the order they ran: round i of every target ran side by side in time. */
let lastRounds: Round[][] = []

/** Warm each up for 1 s, then `passes` passes of a round of each in turn (A B, then B A, …): the medians of each. */
async function alternate (targets: Target[], passes: number): Promise<Round[]> {
  for (const target of targets) await round(target, 1)
  const rounds: Round[][] = targets.map(() => [])
  // A B, then B A, and so on: a drift in the machine's speed over a pair favours neither side.
  for (let i = 0; i < passes; i++) {
    const order = [...targets.keys()]
    if (i % 2 === 1) order.reverse()
    for (const j of order) rounds[j]?.push(await round(targets[j] as Target, seconds))
  }
  lastRounds = rounds
  return rounds.map(medianRound)
}

/** The median of each figure of `list`. */
function medianRound (list: Round[]): Round {
  return {
    rps: median(list.map(r => r.rps)),
    p50: median(list.map(r => r.p50)),
    p99: median(list.map(r => r.p99)),
    cpu: median(list.map(r => r.cpu))
  }
}

interface Row {
  scenario: string
  /** The two sides' loggers, "silent / off". */
  logger: string
  service: Round
  baseline: Round
  /** The lowest acceptable service/baseline req/s ratio; none for context rows. */
  target?: number
  /** The ratio: the median of the ratios of the rounds that ran side by side (pairRow). */
  ratio: number
  /** The lowest and the highest of those ratios: how far this machine moved the row within one run. */
  range: [number, number]
}

/** The processes of one pass, and the loads to run on them: for each load, its targets (A, B, …). */
interface Pass {
  servers: Server[]
  loads: Target[][]
}

/**
 * BENCH_PAIRS passes, each on fresh processes made by `open`, with the same history each time. A
 * process keeps, for its whole life, the speed its code happened to be compiled and laid out for
 * (one build against itself on one pair of processes gave 1.037 here), so rounds on one set of
 * processes would measure that set; over fresh ones it averages out. In each pass, every load runs
 * its targets in turn after a 1 s warm-up of each: A B then B A (A B C then C B A). Returns, per
 * load and per target, every round in the order it ran: round k of each target of a load ran side
 * by side in time.
 */
async function onFreshProcesses (names: string[], open: () => Promise<Pass>): Promise<Round[][][]> {
  const rounds: Round[][][] = names.map(() => [])
  for (let pass = 0; pass < pairs; pass++) {
    const { servers, loads } = await open()
    try {
      for (const [i, targets] of loads.entries()) {
        progress(`${names[i] as string}, processes ${pass + 1} of ${pairs}`)
        await alternate(targets, 2)
        const load = rounds[i] as Round[][]
        lastRounds.forEach((list, j) => { (load[j] ??= []).push(...list) })
      }
    } finally {
      for (const server of servers) await stop(server)
    }
  }
  return rounds
}

/**
 * A row from the rounds of a pair of targets: the medians of each side, and as its ratio the median
 * of the ratios of the rounds that ran side by side (a burst of noise on this shared machine slows
 * both of a pair, so it cancels).
 */
function pairRow (scenario: string, logger: string, [a, b]: Round[][], target?: number): Row {
  const mine = a as Round[]
  const theirs = b as Round[]
  const ratios = mine.map((r, j) => r.rps / (theirs[j] as Round).rps)
  return { scenario, logger, service: medianRound(mine), baseline: medianRound(theirs), target, ratio: median(ratios), range: [Math.min(...ratios), Math.max(...ratios)] }
}

/** The four scenarios of issue 15 (servers.ts), each with its target. */
function scenarios (sessions: Session[]): Array<[string, autocannon.Request[], number]> {
  const targets = [TARGET.heartbeat, TARGET.notePost, TARGET.noteGet, TARGET.creation]
  return scenarioRequests(sessions).map(([name, requests], i): [string, autocannon.Request[], number] => [name, requests, targets[i] as number])
    .filter(([name]) => only.length === 0 || only.includes(name))
}

const thousands = (n: number): string => Math.round(n).toLocaleString('en-US')
const ms = (n: number): string => String(Math.round(n))
const met = (ok: boolean): string => ok ? 'met' : '**not met**'

function table (head: string[], body: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map(cells => (cells[i] ?? '').length)))
  const line = (cells: string[]): string => '| ' + cells.map((c, i) => c.padEnd(widths[i] as number)).join(' | ') + ' |'
  return [line(head), '|' + widths.map(w => '-'.repeat(w + 2)).join('|') + '|', ...body.map(line)].join('\n') + '\n'
}

function formatRows (rows: Row[], sides: [string, string]): string {
  const head = ['scenario', 'logger', `${sides[0]} req/s`, `${sides[1]} req/s`, 'ratio', 'target', 'met',
    'pairs from–to', 'p50 ms', 'p99 ms', 'CPU µs/req', 'ratio CPU']
  const body = rows.map(r => {
    const ratio = r.ratio
    return [
      r.scenario, r.logger, thousands(r.service.rps), thousands(r.baseline.rps), ratio.toFixed(3),
      r.target === undefined ? '' : `≥ ${r.target.toFixed(2)}`, r.target === undefined ? '' : met(ratio >= r.target),
      `${r.range[0].toFixed(3)}–${r.range[1].toFixed(3)}`,
      `${ms(r.service.p50)} / ${ms(r.baseline.p50)}`, `${ms(r.service.p99)} / ${ms(r.baseline.p99)}`,
      `${r.service.cpu.toFixed(1)} / ${r.baseline.cpu.toFixed(1)}`, (r.baseline.cpu / r.service.cpu).toFixed(3)
    ]
  })
  // Without targets (BENCH_AGAINST), no target and met columns.
  const keep = (_cell: string, i: number): boolean => rows.some(r => r.target !== undefined) || (i !== 5 && i !== 6)
  return table(head.filter(keep), body.map(cells => cells.filter(keep)))
}

/**
 * What the journal (issue 16) and the metrics (issue 17) cost: the service with and without them,
 * on fresh pairs of processes (onFreshProcesses). Nothing scrapes /metrics during the rounds: a
 * scrape every 15 s is one request in 300,000 or so.
 */
async function costRows (level: string): Promise<Row[]> {
  const rows: Row[] = []
  const costs = [
    ['journal', {}, { JOURNAL_SIZE: '0' }, TARGET.journal],
    ['metrics', { ADMIN_TOKEN: 'bench-admin-token-0123456789' }, {}, TARGET.metrics]
  ] as const
  const paths = [['GET /heartbeat', 'GET', '/heartbeat', undefined], ['POST /secret/note', 'POST', '/secret/note', noteBody]] as const
  for (const [what, onEnv, offEnv, target] of costs) {
    if (!costsOf.includes(what)) continue
    const rounds = await onFreshProcesses(paths.map(([name]) => `${name}, ${what} on vs off (${level})`), async () => {
      const on = await startService(`service, ${what} on (${level})`, level, onEnv)
      const off = await startService(`service, ${what} off (${level})`, level, offEnv)
      const onSessions = await createSessions(on.url, ROTATION)
      const offSessions = await createSessions(off.url, ROTATION)
      return {
        servers: [on, off],
        loads: paths.map(([, method, path, body]) => [
          { server: on, requests: rotating(method, path, onSessions, body) },
          { server: off, requests: rotating(method, path, offSessions, body) }
        ])
      }
    })
    for (const [i, [name]] of paths.entries()) rows.push(pairRow(`${name}, ${what} on vs off`, `${level} / ${level}`, rounds[i] as Round[][], target))
  }
  return rows
}

/** The note write with the sessions in Redis (redis-server at `url`) against the same in memory. */
async function redisRow (level: string, url: string): Promise<Row> {
  const [rounds] = await onFreshProcesses([`POST /secret/note, Redis vs in memory (${level})`], async () => {
    const withRedis = await startService(`service + Redis (${level})`, level, { REDIS_URL: url })
    const inMemory = await startService(`service (${level})`, level)
    const redisSessions = await createSessions(withRedis.url, ROTATION)
    const memorySessions = await createSessions(inMemory.url, ROTATION)
    return {
      servers: [withRedis, inMemory],
      loads: [[
        { server: withRedis, requests: rotating('POST', '/secret/note', redisSessions, noteBody), spin: false },
        { server: inMemory, requests: rotating('POST', '/secret/note', memorySessions, noteBody), spin: false }
      ]]
    }
  })
  return pairRow('POST /secret/note, Redis vs in memory', `${level} / ${level}`, rounds as Round[][], TARGET.redis)
}

/** BENCH_COSTS: only the on/off rows (and, with redis among them, the Redis row), at each log level. */
async function mainCosts (): Promise<string> {
  const rows: Row[] = []
  const redis = costsOnly.includes('redis') && hasRedis() ? await startRedis(['--appendonly', 'yes']) : undefined
  try {
    for (const level of loggers) {
      if (redis !== undefined) rows.push(await redisRow(level, redis.url))
      rows.push(...await costRows(level))
    }
  } finally {
    await redis?.stop()
  }
  return formatRows(rows, ['on', 'off'])
}

/** Made-up sessions for servers that only echo X-CHALLENGER (the baselines). */
function echoedSessions (): Session[] {
  return Array.from({ length: ROTATION }, () => ({ guid: randomUUID(), token: randomUUID().replaceAll('-', '') }))
}

/** Issue 15's table: each log level against the baseline's matching logger, the Redis row, the context rows. */
async function main (): Promise<string> {
  let out = ''
  let redis: RedisServer | undefined
  if (hasRedis()) {
    redis = await startRedis(['--appendonly', 'yes'])
  } else {
    out += 'redis-server is not installed: the Redis row is left out\n\n'
  }
  const redisLevel = loggers.includes('info') ? 'info' : loggers[0] as string
  const rows: Row[] = []
  const names = scenarios([]).map(([scenario]) => scenario)
  try {
    for (const level of loggers) {
      const logger = `${level} / ${LOGGER_PAIRS[level]}`
      const rounds = await onFreshProcesses(names.map(name => `${name} (${logger})`), async () => {
        const service = await startService(`service (${level})`, level)
        const baseline = await start(`fastify + cors (${LOGGER_PAIRS[level]})`, here('./baseline-fastify.js'), { BASELINE_LOGGER: LOGGER_PAIRS[level] as string })
        const sessions = await createSessions(service.url, ROTATION)
        // Creation runs last: it fills the service to its cap (100,000), evicting the rotated sessions.
        return { servers: [service, baseline], loads: scenarios(sessions).map(([, requests]) => [{ server: service, requests }, { server: baseline, requests }]) }
      })
      for (const [i, [scenario, , target]] of scenarios([]).entries()) {
        rows.push(pairRow(scenario, logger, rounds[i] as Round[][], target))
        // After the note write, at one log level: Redis against memory, then what the journal and the
        // metrics cost (the same service with and without them, in the same run).
        if (scenario !== 'POST /secret/note' || level !== redisLevel) continue
        if (redis !== undefined) rows.push(await redisRow(level, redis.url))
        rows.push(...await costRows(level))
      }
    }
    // Context: what the mandated headers cost bare Fastify, and bare Fastify against node:http.
    const logger = LOGGER_PAIRS[loggers[0] as string] as string
    const context = await onFreshProcesses([`context (${logger})`, `floor (${logger})`], async () => {
      const cors = await start(`fastify + cors (${logger})`, here('./baseline-fastify.js'), { BASELINE_LOGGER: logger })
      const floor = await start('node:http', here('./baseline-http.js'), {})
      const bare = { ...cors, name: `bare fastify (${logger})` }
      const sessions = echoedSessions()
      return {
        servers: [cors, floor],
        loads: [
          [{ server: cors, requests: rotating('GET', '/heartbeat', sessions) }, { server: bare, requests: rotating('GET', '/bare/204', sessions) }],
          [{ server: bare, requests: rotating('GET', '/bare/204', sessions) }, { server: floor, requests: rotating('GET', '/', sessions) }]
        ]
      }
    })
    rows.push(pairRow('context: Fastify + cors GET 204 vs bare Fastify', `${logger} / ${logger}`, context[0] as Round[][]))
    rows.push(pairRow('floor: bare Fastify GET 204 vs node:http', `${logger} / none`, context[1] as Round[][]))
  } finally {
    await redis?.stop()
  }
  out += 'Throughput: the service against bare Fastify with the same CORS and mandated headers\n\n'
  out += formatRows(rows, ['service', 'baseline'])
  return out
}

/** BENCH_AGAINST: this build against another one, scenario by scenario, at each log level. */
async function mainAgainst (): Promise<string> {
  const rows: Row[] = []
  const names = scenarios([]).map(([scenario]) => scenario)
  for (const level of loggers) {
    const rounds = await onFreshProcesses(names.map(name => `${name}, this build against the earlier (${level})`), async () => {
      const service = await startService(`this build (${level})`, level, thisEnv)
      const earlier = await startService(`earlier build (${level})`, level, {}, against)
      const sessions = await createSessions(service.url, ROTATION)
      const theirs = scenarios(await createSessions(earlier.url, ROTATION))
      return {
        servers: [service, earlier],
        loads: scenarios(sessions).map(([, requests], i) => [{ server: service, requests }, { server: earlier, requests: theirs[i]?.[1] as autocannon.Request[] }])
      }
    })
    names.forEach((scenario, i) => { rows.push(pairRow(scenario, `${level} / ${level}`, rounds[i] as Round[][])) })
  }
  const settings = Object.entries(thisEnv).map(([name, value]) => `${name}=${value}`).join(' ')
  return (settings === '' ? '' : `This build with ${settings}\n\n`) + formatRows(rows, ['this build', 'earlier build'])
}

/** Sends `amount` requests of `request` to `server` (filling or warming it), failing on any error. */
async function send (server: Server, what: string, amount: number, request: autocannon.Request): Promise<void> {
  if (amount <= 0) return
  const result = await autocannon({ url: server.url, connections, pipelining, amount, requests: [request] })
  if (result.errors + result.timeouts + result.non2xx > 0 || result.requests.total !== amount) {
    throw new Error(`${what} ${server.name}: ${result.requests.total} requests, ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx answers`)
  }
}

/**
 * Heartbeat and note POST with 1,000, 100,000 and 1,000,000 live sessions (LOG_LEVEL=info,
 * MAX_SESSIONS=1000000), in BENCH_PAIRS passes. Each pass is one fresh service: it gets ROTATION
 * authorized sessions and a warm-up of as many heartbeats as the largest size, then is filled with
 * POST /challenger to each size in turn and measured there: BENCH_SCALE_SETTLE seconds (default 10)
 * of unmeasured heartbeats, then for each load a 1 s warm-up and two rounds, rotating over the
 * authorized sessions. req/s: the median of each size's rounds over the passes.
 * One process for every size: a fresh process keeps a speed of its own for its whole life (see
 * npm run bench:processes), which separate processes per size turned into spread; in one process
 * only the sessions change. The settling: measured right after the filling to 1,000,000, the note
 * write ran 21% below its figure at 1,000 (the filling's garbage and heap growth, 2026-11-26);
 * settled, it did not.
 */
async function scale (): Promise<string> {
  const loads = [['GET /heartbeat', 'GET', '/heartbeat', undefined], ['POST /secret/note', 'POST', '/secret/note', noteBody]] as const
  const rounds: Round[][][] = loads.map(() => SCALE_SIZES.map(() => []))
  const largest = Math.max(...SCALE_SIZES)
  for (let pass = 0; pass < pairs; pass++) {
    // Sessions idle for an hour before they expire, so none of the filling ends during the run.
    const server = await startService('service', 'info', { MAX_SESSIONS: String(largest), SESSION_IDLE_MS: '3600000' })
    try {
      const sessions = await createSessions(server.url, ROTATION)
      // A process that has served fewer requests runs slower (its young generation has not grown, its
      // code is less optimized): before the first size, as many as the largest filling will take.
      await send(server, 'warming', largest, { method: 'GET', path: '/heartbeat' })
      let live = ROTATION
      for (const [k, size] of SCALE_SIZES.entries()) {
        progress(`scale: filling to ${thousands(size)} sessions, processes ${pass + 1} of ${pairs}`)
        await send(server, 'filling', size - live, { method: 'POST', path: '/challenger' })
        live = size
        // The filling's garbage and heap growth settle before the measured rounds (unmeasured).
        await round({ server, requests: rotating('GET', '/heartbeat', sessions) }, SCALE_SETTLE)
        for (const [i, [name, method, path, body]] of loads.entries()) {
          const target = { server, requests: rotating(method, path, sessions, body) }
          await round(target, 1)
          for (let r = 0; r < 2; r++) {
            const measured = await round(target, seconds)
            ;(rounds[i]?.[k] as Round[]).push(measured)
            progress(`scale: ${thousands(size)} sessions, ${name}: ${thousands(measured.rps)} req/s, ${measured.cpu.toFixed(1)} µs`)
          }
        }
      }
    } finally {
      await stop(server)
    }
  }
  const [heartbeat, note] = rounds.map(load => load.map(medianRound)) as [Round[], Round[]]
  const spread = (figures: Round[]): number => Math.max(...figures.map(r => r.rps)) / Math.min(...figures.map(r => r.rps)) - 1
  const body = SCALE_SIZES.map((size, i) => [
    thousands(size), thousands(heartbeat[i]?.rps as number), thousands(note[i]?.rps as number),
    `${ms(heartbeat[i]?.p99 as number)} / ${ms(note[i]?.p99 as number)}`,
    `${heartbeat[i]?.cpu.toFixed(1)} / ${note[i]?.cpu.toFixed(1)}`
  ])
  const [h, n] = [spread(heartbeat), spread(note)]
  body.push([`spread (max/min − 1), target ≤ ${SCALE_SPREAD * 100}%`,
    `${(h * 100).toFixed(1)}% ${met(h <= SCALE_SPREAD)}`, `${(n * 100).toFixed(1)}% ${met(n <= SCALE_SPREAD)}`, '', ''])
  return 'Throughput with many live sessions (LOG_LEVEL=info)\n\n' + table(['live sessions', 'GET /heartbeat req/s', 'POST /secret/note req/s', 'p99 ms (heartbeat / note)', 'CPU µs/req (heartbeat / note)'], body)
}

/** One run of memory.js in a process of its own, with these node flags and arguments. */
async function memoryReport (flags: string[], args: string[] = []): Promise<MemoryReport> {
  const child = spawn(process.execPath, ['--expose-gc', ...flags, here('./memory.js'), ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
  const code = await new Promise(resolve => child.on('exit', resolve))
  if (code !== 0) throw new Error(`memory measurement exited with ${code}`)
  return JSON.parse(output) as MemoryReport
}

async function memory (): Promise<string> {
  progress('memory per idle session')
  // The bytes without the optimizing compilers (steady from run to run; see bench/memory.ts), the
  // expiry's time and the same bytes for context with them.
  const report = await memoryReport(['--no-opt', '--no-maglev'])
  const compiled = await memoryReport([], ['--no-redis'])
  let out = 'Memory per idle session\n\n' + table(['sessions', 'heap bytes per idle session', 'target', 'met', 'the same, optimizing compilers on',
    'with a 100-character note', `and a full journal (target ≤ ${JOURNAL_BYTES})`, 'expiry µs per session', 'bytes per session after expiry'],
  report.heap.map((f, i) => [thousands(f.sessions), String(f.bytesPerSession), `≤ ${HEAP_BYTES}`, met(f.bytesPerSession <= HEAP_BYTES),
    String(compiled.heap[i]?.bytesPerSession), String(f.bytesPerSessionWithNote),
    f.bytesPerSessionWithJournal === null ? '' : `${f.bytesPerSessionWithJournal}, ${met(f.bytesPerSessionWithJournal <= JOURNAL_BYTES)}`,
    String(compiled.heap[i]?.expiryMicrosPerSession), String(f.bytesPerSessionAfterExpiry)]))
  const r = report.redis
  out += '\n' + (r === null
    ? 'redis-server is not installed: no Redis figure\n'
    : table(['sessions in Redis', 'used_memory before', 'used_memory after', 'Redis bytes per idle session', 'target', 'met'],
      [[thousands(r.sessions), thousands(r.before), thousands(r.after), String(r.bytesPerSession), `≤ ${REDIS_BYTES}`, met(r.bytesPerSession <= REDIS_BYTES)]]))
  return out
}

const LEGEND = `
Legend
- ratio: service req/s ÷ baseline req/s (medians of the rounds); "met" when it reaches the target beside it.
  ratio CPU: the baseline's server CPU time per request ÷ the service's (/proc, user + system). When the
  two ratios disagree, the load generator rather than the server was the limit.
- baseline: bare Fastify with @fastify/cors registered as plugins/cors.ts does, plus one synchronous
  onRequest hook setting Access-Control-Allow-Headers, X-Content-Type-Options and the X-Challenger echo
  (bench/baseline-fastify.ts). It answers the service's paths: GET /heartbeat 204; POST /secret/note
  validated by TypeBox and echoed with a response schema; GET /secret/note a fixed 65-character note
  with a response schema; POST /challenger a bare 204 (the service answers 201 with a new session).
- logger: service LOG_LEVEL / baseline logger. silent / off: the baseline has logger: false. ${LOGGER_PAIRS.info === 'info'
  ? 'info / info:\n  both at level info without request logging, with Fastify\'s child logger per request, as src/server.ts.'
  : 'info / info-child:\n  both at level info without request logging; the baseline has Fastify\'s default child logger per request.'}
- Redis row: the service with REDIS_URL (redis-server unpinned, appendonly yes) ÷ the in-memory service.
- journal rows: the service as it starts (a journal of 20 per session) ÷ the same with JOURNAL_SIZE=0.
- metrics rows: the service with ADMIN_TOKEN set (metrics collected, /metrics not scraped during the rounds) ÷ the
  same without (issue 17), each a fresh process; at the Redis row's log level, like the journal rows.
- every row: BENCH_PAIRS passes, each on fresh processes with the same history (a process keeps the speed its
  code happened to be compiled for, for its whole life), each running A B then B A after a 1 s warm-up of each;
  the ratio is the median of the 2 × BENCH_PAIRS pairs' ratios (each pair ran side by side in time, so a burst
  of noise on the shared machine slows both), the other figures the medians of each side's rounds.
- pairs from–to: the lowest and the highest of those pairs' ratios, how far the machine moved the row within
  the run (two builds of the same code give a range around 1.0 as wide as the machine's noise).
- context and floor rows: Fastify + cors ÷ bare Fastify, bare Fastify ÷ node:http (no targets).
- p50, p99: autocannon's latency at the given connections, in whole milliseconds (service / baseline).
- scale: in each of BENCH_PAIRS passes, one fresh service (MAX_SESSIONS=1000000) with ${ROTATION} authorized sessions,
  warmed with as many heartbeats as the largest size, then filled with POST /challenger to each size in turn and
  measured there (BENCH_SCALE_SETTLE s of unmeasured heartbeats, default 10, then for each load a 1 s warm-up and
  two rounds rotating over those sessions): one process for every size,
  so that only the sessions differ (a fresh process has a speed of its own for its whole life); req/s the median of
  each size's rounds; spread = fastest ÷ slowest − 1.
- heap: in-process MemoryStore, heapUsed + arrayBuffers (a journal's integers are an Int32Array) after a full gc and an unmeasured first
  round; the 1,000 figure is over twenty stores of 1,000 alive together. The bytes come from node --no-opt --no-maglev: with
  the optimizing compilers, the code they make and drop during the measured loop lands on the same heap and moved the 1,000
  figure from 227 to 258 between runs (their figure is the context column); the sessions' objects and strings are the same
  either way. Expiry µs from the run with them. Redis: INFO memory used_memory, after − before, ÷ sessions
  (a redis-server of its own, no persistence).
`

let exitCode = 0
try {
  if (pin) execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' })
  process.stdout.write(`node ${process.version}, ${seconds} s rounds, ${pairs} pairs, ${connections} connections, pipelining ${pipelining}, ${spinLoad ? 'load generator spinning (not for Redis)' : 'load generator not spinning'}, ` +
    (pin ? 'servers on core 0, load on core 1' : 'not pinned') + `, log levels ${loggers.join(', ')}` +
    (nodeFlags.length > 0 ? `, every server run with node ${nodeFlags.join(' ')}` : '') + '\n\n')
  if (costsOnly.length > 0) {
    process.stdout.write(await mainCosts())
  } else if (scaleOnly) {
    process.stdout.write(await scale())
  } else if (against !== '') {
    process.stdout.write(`This build against ${against} (ratio: this ÷ that):\n\n` + await mainAgainst())
  } else {
    process.stdout.write(await main())
    if (withScale) process.stdout.write('\n' + await scale())
    if (withMemory) process.stdout.write('\n' + await memory())
    process.stdout.write(LEGEND)
  }
} catch (error) {
  process.stderr.write(`bench: ${(error as Error).message}\n`)
  exitCode = 1
} finally {
  for (const server of [...running]) await stop(server)
}
process.exitCode = exitCode
