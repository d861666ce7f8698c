// node dist/bench/hostile-journals.js (after npm run build): what a session with a full journal of
// a stranger's requests costs the service's process (issue 34). The built server runs in its own
// process (in memory, the creation limit off); HOSTILE_SESSIONS sessions (default 8,000) are
// created, and each is sent JOURNAL_SIZE (default 20) requests with a unique 200-character unknown
// path, a unique 200-character query string (issue 49: the journal keeps it for a replay) and a
// unique 200-character Content-Type, so every journal is full of texts the service cannot know in advance. The process's RSS is read from /proc before the sessions and after, each
// time after a full gc (gc-signal.js, preloaded), and also after without that gc; the figure is
// bytes per session, the session itself included, beside the bound the service's start-up check
// counts with (worstSessionBytes). BENCH_AGAINST: another build's dist/src/server.js to measure instead.
import { readFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { worstSessionBytes } from '../src/domain/journal/journal.js'
import { here, startService, stop, type Server } from './servers.js'
import { setting } from './settings.js'

const SESSIONS = setting('HOSTILE_SESSIONS', 8_000)
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
      const line = /bench-gc-done (\S+)/.exec(chunk)
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

/** One session made, then REQUESTS hostile requests naming it. */
async function hostileSession (server: Server, s: number): Promise<void> {
  const created = await send(server, 'POST', '/challenger', {})
  if (created.status !== 201 || created.guid === undefined) throw new Error(`POST /challenger answered ${created.status}`)
  for (let n = 0; n < REQUESTS; n++) {
    const path = `${unique('/', s, n, TEXT)}?${unique('q=', s, n, TEXT)}`
    const answer = await send(server, 'GET', path, { 'x-challenger': created.guid, 'content-type': unique('application/x-', s, n, TEXT) })
    if (answer.status !== 404) throw new Error(`an unknown path answered ${answer.status}`)
  }
}

async function hostileSessions (server: Server, from: number, count: number): Promise<void> {
  let next = from
  const worker = async (): Promise<void> => {
    while (next < from + count) await hostileSession(server, next++)
  }
  await Promise.all(Array.from({ length: PARALLEL }, worker))
}

const script = process.env.BENCH_AGAINST ?? here('../src/server.js')
const server = await startService('service', 'silent', { JOURNAL_SIZE: String(REQUESTS) }, script, ['--expose-gc', '--import', here('./gc-signal.js')])
try {
  // A first round, unmeasured, so that the code that records such requests is compiled before the first reading.
  await hostileSessions(server, 0, 500)
  const before = await rssAfterGc(server)
  const started = Date.now()
  await hostileSessions(server, 500, SESSIONS)
  const seconds = (Date.now() - started) / 1000
  const withGarbage = rss(server)
  const after = await rssAfterGc(server)
  const perSession = (bytes: number): number => Math.round(bytes / SESSIONS)
  process.stdout.write(JSON.stringify({
    script,
    sessions: SESSIONS,
    requestsPerSession: REQUESTS,
    seconds,
    rssBefore: before,
    rssAfter: after,
    bytesPerSession: perSession(after - before),
    bytesPerSessionWithoutGc: perSession(withGarbage - before),
    bound: worstSessionBytes(REQUESTS)
  }) + '\n')
} finally {
  await stop(server)
  agent.destroy()
}
