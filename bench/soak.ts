// npm run soak (after npm run build): many simulated learners at once against the service on
// 127.0.0.1, each doing the whole challenge flow and then writing notes in a loop for a fixed time.
// At the end every learner's stored note must be its last acknowledged write, its progress exactly
// the challenges it did, and no learner may ever have seen another's data. Bounded in count and
// time; exits non-zero on any loss or error. Settings: SOAK_LEARNERS (default 200), SOAK_SECONDS
// (default 20).
import { spawn } from 'node:child_process'
import { Agent, request as httpRequest } from 'node:http'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { setting } from './settings.js'

const LEARNERS = setting('SOAK_LEARNERS', 200)
const SECONDS = setting('SOAK_SECONDS', 20)
const BASIC = 'Basic ' + Buffer.from('admin:password').toString('base64')
const ALL_IDS = ['01', '02', '25', '26', '27', '28', '29', '30', '31', '32', '33', '34', '35', '36', '37', '38', '40', '41', '42']

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

const agent = new Agent({ keepAlive: true, maxSockets: LEARNERS })
const latencies: number[] = []
let requests = 0
let port = 0

function send (method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent }, res => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => { text += chunk })
      res.on('end', () => {
        requests++
        latencies.push(performance.now() - started)
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text })
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

class Learner {
  guid = ''
  token = ''
  lastAck = ''
  writes = 0
  readonly problems: string[] = []

  expect (what: string, answer: Answer, status: number): Answer {
    if (answer.status !== status) this.problems.push(`${what}: ${answer.status}, not ${status} (${answer.body.slice(0, 120)})`)
    return answer
  }

  async flow (): Promise<void> {
    const created = this.expect('create', await send('POST', '/challenger'), 201)
    this.guid = String(created.headers['x-challenger'])
    const me = { 'x-challenger': this.guid }
    this.expect('challenges', await send('GET', '/challenges', me), 200)
    this.expect('token refused', await send('POST', '/secret/token', { ...me, authorization: 'Basic eDp5' }), 401)
    const issued = this.expect('token', await send('POST', '/secret/token', { ...me, authorization: BASIC }), 201)
    this.token = String(issued.headers['x-auth-token'])
    const heartbeat: Array<[string, number, Record<string, string>]> = [
      ['GET', 204, {}], ['DELETE', 405, {}], ['PATCH', 500, {}], ['TRACE', 501, {}],
      ['POST', 405, { 'x-http-method-override': 'DELETE' }], ['POST', 500, { 'x-http-method-override': 'PATCH' }],
      ['POST', 501, { 'x-http-method-override': 'TRACE' }]
    ]
    for (const [method, status, extra] of heartbeat) this.expect(`${method} /heartbeat`, await send(method, '/heartbeat', { ...me, ...extra }), status)
    const json = { 'content-type': 'application/json' }
    const note = JSON.stringify({ note: `${this.guid}:0` })
    this.expect('read, no token', await send('GET', '/secret/note', me), 401)
    this.expect('read, wrong token', await send('GET', '/secret/note', { ...me, 'x-auth-token': 'wrong' }), 403)
    this.expect('write, no token', await send('POST', '/secret/note', { ...me, ...json }, note), 401)
    this.expect('write, wrong token', await send('POST', '/secret/note', { ...me, 'x-auth-token': 'wrong', ...json }, note), 403)
    await this.write({ ...me, authorization: `Bearer ${this.token}` })
    this.expect('read, bearer', await send('GET', '/secret/note', { ...me, authorization: `Bearer ${this.token}` }), 200)
  }

  /** One note write; acknowledged when it answers 200 with the note sent. */
  async write (auth: Record<string, string>): Promise<void> {
    const text = `${this.guid}:${++this.writes}`
    const answer = await send('POST', '/secret/note', { ...auth, 'content-type': 'application/json' }, JSON.stringify({ note: text }))
    if (answer.status === 200 && JSON.parse(answer.body).note === text) this.lastAck = text
    else this.problems.push(`write ${this.writes}: ${answer.status} ${answer.body.slice(0, 120)}`)
  }

  async loop (until: number): Promise<void> {
    const auth = { 'x-challenger': this.guid, 'x-auth-token': this.token }
    // At least once, however long the flow took on a loaded machine: it passes challenges 33 and 34.
    do {
      await this.write(auth)
      const read = this.expect('read', await send('GET', '/secret/note', auth), 200)
      if (read.status !== 200) continue
      const seen = JSON.parse(read.body).note as string
      if (!seen.startsWith(`${this.guid}:`)) this.problems.push(`saw another's note: ${seen}`)
      else if (seen !== this.lastAck) this.problems.push(`read ${seen} after acknowledged ${this.lastAck}`)
    } while (performance.now() < until)
  }

  /** The stored session must be exactly what this learner did. */
  async verify (): Promise<void> {
    const saved = this.expect('session', await send('GET', `/challenger/${this.guid}`), 200)
    if (saved.status !== 200) return
    const session = JSON.parse(saved.body) as { secretNote: string, challengeStatus: Record<string, boolean> }
    if (session.secretNote !== this.lastAck) this.problems.push(`lost write: stored ${session.secretNote}, acknowledged ${this.lastAck}`)
    const passed = Object.entries(session.challengeStatus).filter(([, done]) => done).map(([id]) => id).sort()
    if (passed.join() !== ALL_IDS.join()) this.problems.push(`progress ${passed.join()} is not ${ALL_IDS.join()}`)
  }
}

const server = spawn(process.execPath, [fileURLToPath(new URL('../src/server.js', import.meta.url))], {
  // One address creates every session here, so the per-address creation limit is off.
  env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', CREATION_RATE_LIMIT: '0' },
  stdio: ['ignore', 'pipe', 'inherit']
})
let failed = true
try {
  port = await new Promise<number>((resolve, reject) => {
    let out = ''
    server.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk
      const found = /ready: curl -i -X POST http:\/\/127\.0\.0\.1:(\d+)\/challenger/.exec(out)
      if (found !== null) resolve(Number(found[1]))
    })
    server.on('exit', code => reject(new Error(`the server exited with ${code} before listening`)))
  })
  server.stdout.resume()
  const learners = Array.from({ length: LEARNERS }, () => new Learner())
  const started = performance.now()
  await Promise.all(learners.map(l => l.flow()))
  await Promise.all(learners.map(l => l.loop(started + SECONDS * 1000)))
  await Promise.all(learners.map(l => l.verify()))
  const elapsed = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  const p99 = latencies[Math.floor(latencies.length * 0.99)] ?? 0
  const problems = learners.flatMap(l => l.problems.map(p => `${l.guid}: ${p}`))
  const writes = learners.reduce((sum, l) => sum + l.writes, 0)
  process.stdout.write(`soak: ${LEARNERS} learners, ${elapsed.toFixed(1)} s, ${requests} requests (${(requests / elapsed).toFixed(0)}/s), ` +
    `${writes} note writes, p99 ${p99.toFixed(1)} ms, errors ${problems.length}\n`)
  for (const problem of problems.slice(0, 20)) process.stdout.write(`  ${problem}\n`)
  failed = problems.length > 0
} catch (error) {
  process.stderr.write(`soak: ${(error as Error).message}\n`)
} finally {
  agent.destroy()
  server.kill('SIGTERM')
}
process.exitCode = failed ? 1 : 0
