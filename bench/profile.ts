// npm run bench:profile (after npm run build): where issue 15's scenarios spend their time, function by
// function, in the service and in its baseline (bench/baseline-fastify.ts, Fastify with the same CORS).
// Each side runs alone under node --cpu-prof, pinned like npm run bench, under the same static load for
// BENCH_SECONDS (default 10) after a 1 s warm-up. Its CPU time per request comes from /proc over the
// measured load, and is shared out by the profile's samples of that time (the last BENCH_SECONDS of the
// profile: the server stops as soon as the load does). The service runs at LOG_LEVEL=silent, the
// baseline with logger: false. The load generator spins as npm run bench's does (BENCH_SPIN=0: it
// does not). Printed per scenario: CPU µs per request by origin on both sides, then the functions
// that cost the service the most more than they cost the baseline, and the price list: the service's
// CPU per request by capability (capabilityOf: the capability's own modules, self time). Settings:
// BENCH_SECONDS, BENCH_SCENARIOS (as npm run bench's), BENCH_SERVICE_ENV (settings of the profiled
// service, comma-separated NAME=value: ADMIN_TOKEN=… prices the metrics, TRUST_PROXY=1 the client's
// address).
import autocannon from 'autocannon'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cpuMicros, createSessions, here, pin, running, scenarioRequests, spinLoad, spinWhile, start, startService, stop, type Server } from './servers.js'
import { setting } from './settings.js'

const seconds = setting('BENCH_SECONDS', 10)
const TOP = 15

interface ProfileNode { id: number, callFrame: { functionName: string, url: string, lineNumber: number }, children?: number[] }
interface Profile { nodes: ProfileNode[], samples: number[], timeDeltas: number[], startTime: number, endTime: number }

/** Where a function comes from, by its script: the service's code, a package, Node's own, V8's. */
export function originOf (functionName: string, url: string): string {
  if (url === '') {
    if (functionName === '(garbage collector)') return 'garbage collector'
    if (functionName === '(program)') return 'V8 and native (program)'
    return 'native (socket writes, regexps, Date)'
  }
  if (/\/dist\/(plugins|routes|src)\//.test(url)) return 'the service (plugins/, routes/, src/)'
  if (url.includes('/dist/bench/')) return 'the baseline\'s routes'
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)
  if (pkg !== null) return pkg[1] === 'fastify' || pkg[1] === '@fastify/cors' || pkg[1] === 'find-my-way' ? pkg[1] : 'other packages'
  if (/^node:_http|^node:http/.test(url)) return 'node: http'
  if (/^node:(net|internal\/stream_base|internal\/streams|stream)/.test(url)) return 'node: net and streams'
  return 'node: other'
}

/** The capabilities of the price list (docs/benchmarks.md), each by the scripts of its own modules. */
const CAPABILITIES: ReadonlyArray<[capability: string, scripts: RegExp]> = [
  ['CORS (@fastify/cors)', /node_modules\/@fastify\/cors\//],
  ['header casing (Title-Case names)', /\/dist\/src\/domain\/http\/wire\.js/],
  ['arrival (echo, nosniff, 431, Host)', /\/dist\/plugins\/headers\.js|\/dist\/src\/domain\/http\/(common-headers|misspelt-header)\.js/],
  ['client address (TRUST_PROXY only)', /\/dist\/plugins\/client-address\.js|\/dist\/src\/domain\/http\/forwarded\.js/],
  ['session lookup', /\/dist\/plugins\/session\.js|\/dist\/src\/domain\/sessions\/(memory-store|marks|last-ids|worth|store)\.js/],
  ['defects', /\/dist\/plugins\/defects\.js|\/dist\/src\/domain\/defects\//],
  ['auth (the token)', /\/dist\/plugins\/auth\.js|\/dist\/src\/domain\/sessions\/secrets\.js/],
  ['body (set aside, verdict)', /\/dist\/plugins\/bodies\.js/],
  ['format (406, XML)', /\/dist\/plugins\/(formats|acceptable)\.js/],
  ['journal (entry, near miss, ring)', /\/dist\/plugins\/journal\.js|\/dist\/src\/domain\/journal\/|\/dist\/src\/domain\/challenges\/(catalogue|near-miss-rules)\.js/],
  ['metrics (ADMIN_TOKEN only)', /\/dist\/plugins\/metrics\.js|node_modules\/prom-client\//],
  ['connection table', /\/dist\/src\/domain\/http\/(connection-table|connections)\.js|\/dist\/src\/server-options\.js/],
  ['pipeline (the finish\'s calls)', /\/dist\/plugins\/pipeline\.js/],
  ['handlers (routes/)', /\/dist\/routes\//]
]

/** The capability of the price list whose module `url` is, or undefined. */
export function capabilityOf (url: string): string | undefined {
  return CAPABILITIES.find(([, scripts]) => scripts.test(url))?.[0]
}

/** Self time of each function (and origin, and capability) in the last `windowMicros` of the profile, as a share of the busy samples. */
export function shares (profile: Profile, windowMicros: number): { byFunction: Map<string, number>, byOrigin: Map<string, number>, byCapability: Map<string, number> } {
  const nodes = new Map(profile.nodes.map(node => [node.id, node]))
  const from = profile.endTime - windowMicros
  const self = new Map<number, number>()
  let at = profile.startTime
  let busy = 0
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0
    const name = nodes.get(id)?.callFrame.functionName
    if (at < from || name === '(idle)' || name === '(root)') return
    const dt = profile.timeDeltas[i + 1] ?? 0
    self.set(id, (self.get(id) ?? 0) + dt)
    busy += dt
  })
  const byFunction = new Map<string, number>()
  const byOrigin = new Map<string, number>()
  const byCapability = new Map<string, number>()
  for (const [id, micros] of self) {
    const { functionName, url, lineNumber } = (nodes.get(id) as ProfileNode).callFrame
    const origin = originOf(functionName, url)
    const capability = capabilityOf(url)
    if (capability !== undefined) byCapability.set(capability, (byCapability.get(capability) ?? 0) + micros / busy)
    const key = `${functionName === '' ? '(anonymous)' : functionName} ${url.replace(/^.*\/(node_modules|dist)\//, '').replace(/^file:\/\//, '')}:${lineNumber + 1}\t${origin}`
    byFunction.set(key, (byFunction.get(key) ?? 0) + micros / busy)
    byOrigin.set(origin, (byOrigin.get(origin) ?? 0) + micros / busy)
  }
  return { byFunction, byOrigin, byCapability }
}

interface Measured { cpuPerRequest: number, rps: number, byFunction: Map<string, number>, byOrigin: Map<string, number>, byCapability: Map<string, number> }

async function measure (server: Server, requests: autocannon.Request[], dir: string): Promise<Measured> {
  await autocannon({ url: server.url, connections: 50, duration: 1, requests })
  const before = cpuMicros(server.child.pid) as number
  const result = await spinWhile(spinLoad, async () => await autocannon({ url: server.url, connections: 50, duration: seconds, requests }))
  const after = cpuMicros(server.child.pid) as number
  if (result.errors + result.timeouts + result.non2xx > 0) throw new Error(`${server.name}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx answers`)
  await stop(server)
  const file = readdirSync(dir).find(name => name.endsWith('.cpuprofile'))
  if (file === undefined) throw new Error(`${server.name} wrote no profile in ${dir}`)
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile
  return { cpuPerRequest: (after - before) / result.requests.total, rps: result.requests.average, ...shares(profile, seconds * 1e6) }
}

const f2 = (n: number): string => n.toFixed(2)

function report (name: string, service: Measured, baseline: Measured): string {
  const serviceMicros = (share = 0): number => share * service.cpuPerRequest
  const baselineMicros = (share = 0): number => share * baseline.cpuPerRequest
  let out = `### ${name}\n\nservice ${Math.round(service.rps).toLocaleString('en-US')} req/s, ${f2(service.cpuPerRequest)} µs of CPU per request; ` +
    `baseline ${Math.round(baseline.rps).toLocaleString('en-US')} req/s, ${f2(baseline.cpuPerRequest)} µs (ratio ${(service.rps / baseline.rps).toFixed(3)})\n\n`
  const origins = [...new Set([...service.byOrigin.keys(), ...baseline.byOrigin.keys()])]
    .map(origin => [origin, serviceMicros(service.byOrigin.get(origin)), baselineMicros(baseline.byOrigin.get(origin))] as const)
    .sort((a, b) => (b[1] - b[2]) - (a[1] - a[2]))
  out += '| origin | service µs/req | baseline µs/req | difference |\n|---|---|---|---|\n'
  for (const [origin, mine, theirs] of origins) out += `| ${origin} | ${f2(mine)} | ${f2(theirs)} | ${f2(mine - theirs)} |\n`
  out += `| **total** | ${f2(service.cpuPerRequest)} | ${f2(baseline.cpuPerRequest)} | ${f2(service.cpuPerRequest - baseline.cpuPerRequest)} |\n\n`
  const functions = [...new Set([...service.byFunction.keys(), ...baseline.byFunction.keys()])]
    .map(key => [key, serviceMicros(service.byFunction.get(key)), baselineMicros(baseline.byFunction.get(key))] as const)
    .sort((a, b) => (b[1] - b[2]) - (a[1] - a[2]))
    .slice(0, TOP)
  out += `The ${TOP} functions that cost the service the most more than the baseline (self time):\n\n| function | origin | service µs/req | baseline µs/req |\n|---|---|---|---|\n`
  for (const [key, mine, theirs] of functions) {
    const [fn, origin] = key.split('\t')
    out += `| \`${fn}\` | ${origin} | ${f2(mine)} | ${f2(theirs)} |\n`
  }
  out += '\nThe price list: the service\'s CPU per request by capability (its modules\' self time), and Fastify\'s own beyond the baseline\'s (its hook runner, for the steps):\n\n| capability | µs/req | share |\n|---|---|---|\n'
  for (const [capability] of CAPABILITIES) {
    const share = service.byCapability.get(capability) ?? 0
    out += `| ${capability} | ${f2(serviceMicros(share))} | ${(100 * share).toFixed(1)}% |\n`
  }
  const fastify = serviceMicros(service.byOrigin.get('fastify')) - baselineMicros(baseline.byOrigin.get('fastify'))
  out += `| Fastify, beyond the baseline's | ${f2(fastify)} | ${(100 * fastify / service.cpuPerRequest).toFixed(1)}% |\n`
  return out + '\n'
}

let exitCode = 0
const dirs: string[] = []
try {
  if (pin) execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' })
  process.stdout.write(`node ${process.version}, ${seconds} s of load per side, 50 connections, ` + (pin ? 'servers on core 0, load on core 1' : 'not pinned') + '\n\n')
  const profiled = (): string[] => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-profile-'))
    dirs.push(dir)
    return ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-interval', '200']
  }
  const only = (process.env.BENCH_SCENARIOS ?? '').split(',').map(name => name.trim()).filter(name => name !== '')
  const serviceEnv = Object.fromEntries((process.env.BENCH_SERVICE_ENV ?? '').split(',').filter(pair => pair.includes('=')).map(pair => {
    const at = pair.indexOf('=')
    return [pair.slice(0, at).trim(), pair.slice(at + 1).trim()]
  }))
  for (const name of scenarioRequests([]).map(([scenario]) => scenario).filter(scenario => only.length === 0 || only.includes(scenario))) {
    process.stderr.write(`bench:profile: ${name}\n`)
    const serviceArgs = profiled()
    // No drain on SIGTERM: the profile's last BENCH_SECONDS must be the load's, not 5 s of draining.
    const service = await startService('service', 'silent', { SHUTDOWN_DRAIN_MS: '0', ...serviceEnv }, undefined, serviceArgs)
    // Sessions live in the process: the profiled service makes its own, and the baseline, which
    // ignores X-CHALLENGER and X-AUTH-TOKEN, gets the same requests.
    const sessions = await createSessions(service.url, 200)
    const requests = scenarioRequests(sessions).find(([scenario]) => scenario === name)?.[1] as autocannon.Request[]
    const serviceFigures = await measure(service, requests, serviceArgs[2] as string)
    const baselineArgs = profiled()
    const baseline = await start('baseline', here('./baseline-fastify.js'), { BASELINE_LOGGER: 'off' }, baselineArgs)
    const baselineFigures = await measure(baseline, requests, baselineArgs[2] as string)
    process.stdout.write(report(name, serviceFigures, baselineFigures))
  }
} catch (error) {
  process.stderr.write(`bench:profile: ${(error as Error).message}\n`)
  exitCode = 1
} finally {
  for (const server of [...running]) await stop(server)
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
}
process.exitCode = exitCode
