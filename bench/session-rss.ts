// node dist/bench/session-rss.js (after npm run build): what a session costs the service's process,
// as an operator sees it: the RSS of the built server (in memory, the creation limit off), read from
// /proc before and after SESSIONS sessions, each time after a full gc (gc-signal.js, preloaded), and
// also after without that gc. The figure is bytes per session, the session itself included. Three
// kinds (RSS_KIND), each with its issue's bound and session count:
//   idle      50,000 sessions made (POST /challenger) and never used again: ≤ 500 bytes (issue 56)
//   ordinary  20,000 sessions, each with a full journal (JOURNAL_SIZE, default 20) of heartbeats: ≤ 1,500
//   hostile    8,000 sessions, each with a full journal of a stranger's requests: a unique
//             200-character unknown path, query string (issue 49: the journal keeps it for a replay)
//             and Content-Type each, texts the service cannot know in advance: ≤ 2,000, beside the
//             bound the service's start-up check counts with (worstSessionBytes)
// RSS_SESSIONS overrides the count; BENCH_AGAINST: another build's dist/src/server.js to measure instead.
import { readFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { worstSessionBytes } from '../src/domain/journal/journal.js'
import { here, startService, stop, type Server } from './servers.js'
import { setting } from './settings.js'

const KINDS = { idle: { sessions: 50_000, bound: 500 }, ordinary: { sessions: 20_000, bound: 1_500 }, hostile: { sessions: 8_000, bound: 2_000 } } as const
type Kind = keyof typeof KINDS
const kind = (process.env.RSS_KIND ?? 'hostile') as Kind
if (!Object.hasOwn(KINDS, kind)) {
  process.stderr.write(`session-rss: RSS_KIND must be one of ${Object.keys(KINDS).join(', ')}, got ${JSON.stringify(kind)}\n`)
  process.exit(1)
}
const SESSIONS = setting('RSS_SESSIONS', KINDS[kind].sessions)
const REQUESTS = setting('JOURNAL_SIZE', 20)
/** Requests in flight at once. */
const PARALLEL = 32
const TEXT = 200

const agent = new Agent({ keepAlive: true, maxSockets: PARALLEL })

function rss (server: Server): number {
  const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8')
  const found = /^VmRSS:\s+(\d+) kB/m.exec(status)
  if (found === null) throw new Error('no VmRSS in /proc/<pid>/status')
  return Number(found[1]) * 1024
}

/** RSS after a full gc in the server (gc-signal.js answers SIGWINCH on its stdout). */
async function rssAfterGc (server: Server): Promise<number> {
  const stdout = server.child.stdout
  if (stdout === null) throw new Error('the server has no stdout')
  const done = new Promise<string>(resolve => {
    const listen = (chunk: string): void => {
      const line = /bench-gc-done (\S+)(?: (\{.*\}))?/.exec(chunk)
      if (line?.[2] !== undefined) process.stderr.write(`session-rss: ${line[2]}\n`)
      if (line === null) return
      stdout.off('data', listen)
      resolve(line[1] as string)
    }
    stdout.on('data', listen)
  })
  server.child.kill('SIGWINCH')
  if (await done !== 'gc') throw new Error('the server was started without --expose-gc')
  return rss(server)
}

function send (server: Server, method: string, path: string, headers: Record<string, string>): Promise<{ status: number, guid: string | undefined }> {
  const url = new URL(server.url)
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers, agent }, res => {
      res.resume()
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, guid: res.headers['x-challenger'] as string | undefined }) })
      res.on('error', reject)
    })
    req.on('error', error => { reject(new Error(`${method} ${path.slice(0, 30)}…: ${error.message}`)) })
    req.end()
  })
}

/** `length` characters, unique for (session, request, kind): no two requests share a text. */
function unique (kind: string, session: number, n: number, length: number): string {
  const start = `${kind}${session.toString(36)}-${n.toString(36)}-`
  return start + 'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(Math.ceil(length / 36)).slice(0, length - start.length)
}

/** One session made, then its kind's REQUESTS requests naming it (none for an idle one). */
async function oneSession (server: Server, s: number): Promise<void> {
  const created = await send(server, 'POST', '/challenger', {})
  if (created.status !== 201 || created.guid === undefined) throw new Error(`POST /challenger answered ${created.status}`)
  if (kind === 'idle') return
  for (let n = 0; n < REQUESTS; n++) {
    if (kind === 'ordinary') {
      const answer = await send(server, 'GET', '/heartbeat', { 'x-challenger': created.guid })
      if (answer.status !== 204) throw new Error(`a heartbeat answered ${answer.status}`)
      continue
    }
    const path = `${unique('/', s, n, TEXT)}?${unique('q=', s, n, TEXT)}`
    const answer = await send(server, 'GET', path, { 'x-challenger': created.guid, 'content-type': unique('application/x-', s, n, TEXT) })
    if (answer.status !== 404) throw new Error(`an unknown path answered ${answer.status}`)
  }
}

async function sessions (server: Server, from: number, count: number): Promise<void> {
  let next = from
  const worker = async (): Promise<void> => {
    while (next < from + count) await oneSession(server, next++)
  }
  await Promise.all(Array.from({ length: PARALLEL }, worker))
}

const script = process.env.BENCH_AGAINST ?? here('../src/server.js')
// Room for every session, and none made room for by another (MAX_SESSIONS is 100,000 by default).
const server = await startService('service', 'silent', { JOURNAL_SIZE: String(REQUESTS), MAX_SESSIONS: String(SESSIONS + 1_000) }, script, ['--expose-gc', '--import', here('./gc-signal.js')])
try {
  // A first round, unmeasured, so that the code that makes such sessions is compiled before the first reading.
  await sessions(server, 0, 500)
  const before = await rssAfterGc(server)
  const started = Date.now()
  await sessions(server, 500, SESSIONS)
  const seconds = (Date.now() - started) / 1000
  const withGarbage = rss(server)
  const after = await rssAfterGc(server)
  const perSession = (bytes: number): number => Math.round(bytes / SESSIONS)
  process.stdout.write(JSON.stringify({
    kind,
    script,
    sessions: SESSIONS,
    requestsPerSession: kind === 'idle' ? 0 : REQUESTS,
    seconds,
    rssBefore: before,
    rssAfter: after,
    bytesPerSession: perSession(after - before),
    bytesPerSessionWithoutGc: perSession(withGarbage - before),
    bound: KINDS[kind].bound,
    ...(kind === 'hostile' ? { startUpBound: worstSessionBytes(REQUESTS) } : {})
  }) + '\n')
} finally {
  await stop(server)
  agent.destroy()
}
