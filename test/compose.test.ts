// compose.yaml's class as an instructor brings it up (here with podman-compose, the images stood in
// for as test/containers.ts says): the address said once by its `class` service, the board on this
// machine only, and learners writing notes through nginx while one instance is stopped: every
// note acknowledged is there afterwards. First, that docs/compose/nginx.conf is still the recipe.
import { readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import t from 'tap'
import { composeMissing, podman, practiceImage, run, toolsImage } from './containers.js'
import { root } from './processes.js'
import { freePort } from './redis-server.js'
import { until } from './until.js'

// A first build, then ten containers up: minutes on a busy machine.
t.setTimeout(900_000)

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`
const TOKEN = 'compose-test-admin-token-0123456789'
const CLOSED = 'server closed: listener, connections and session store; the process exits'

t.test('docs/compose/nginx.conf is docs/proxy/nginx.conf but for the lines it marks "compose:"', async t => {
  // The directives, without comments and blank lines.
  const directives = (file: string): string[] => readFileSync(new URL(`../docs/${file}`, import.meta.url), 'utf8')
    .split('\n').map(line => line.replace(/#.*$/, '').trim()).filter(line => line !== '')
  const recipe = directives('proxy/nginx.conf')
  const expected = recipe
    .filter(line => !line.startsWith('server 127.0.0.1:3003 '))
    .map(line => line.replace('127.0.0.1:3001', 'practice-1:3000').replace('127.0.0.1:3002', 'practice-2:3000')
      .replace('proxy_set_header Host $host;', 'proxy_set_header Host $http_host;')
      .replace('proxy_next_upstream_tries 3;', 'proxy_next_upstream_tries 2;'))
  t.equal(expected.length, recipe.length - 2, 'the recipe\'s third instance, twice, is all that goes')
  t.same(directives('compose/nginx.conf'), expected)
})

interface Learner { guid: string, headers: Record<string, string>, sent: number, acked: number[] }

if (composeMissing !== false && process.env.CI === 'true') {
  t.fail(composeMissing)
} else {
  t.test('compose.yaml: a class up in one command, its address said once, and no note lost while an instance stops', { skip: composeMissing }, async t => {
    const { image } = await practiceImage(t, { tools: true })
    const project = `apichallenges${process.pid}`
    const [classPort, boardPort] = [await freePort(), await freePort()]
    const base = `http://127.0.0.1:${classPort}`
    const env = {
      API_CHALLENGES_IMAGE: image,
      REDIS_IMAGE: toolsImage,
      NGINX_IMAGE: toolsImage,
      // On loopback only, here.
      CLASS_PORT: `127.0.0.1:${classPort}`,
      BOARD_PORT: String(boardPort),
      PUBLIC_URL: base,
      ADMIN_TOKEN: TOKEN
    }
    const compose = async (...args: string[]) => await run('podman-compose', ['--project-name', project, ...args], env, root)
    t.teardown(async () => {
      await compose('down', '--volumes')
      // Whatever down left (podman-compose 1.0.3 leaves the network), or all of it, had it failed half-way.
      const label = `label=io.podman.compose.project=${project}`
      const containers = (await run('podman', ['ps', '--all', '--quiet', '--filter', label])).stdout.split('\n').filter(id => id !== '')
      if (containers.length > 0) await run('podman', ['rm', '--force', '--time', '0', ...containers])
      const volumes = (await run('podman', ['volume', 'ls', '--quiet', '--filter', label])).stdout.split('\n').filter(id => id !== '')
      if (volumes.length > 0) await run('podman', ['volume', 'rm', '--force', ...volumes])
      await run('podman', ['network', 'rm', '--force', `${project}_default`])
    })

    const began = performance.now()
    const up = await compose('up', '--detach')
    t.equal(up.code, 0, up.code === 0 ? 'podman-compose up --detach' : up.stderr.slice(-3000))
    const container = (service: string): string => `${project}_${service}_1`
    t.equal(await podman('wait', container('class')), '0', 'the class service has said where, and exited')
    t.comment(`up: ${seconds(performance.now() - began)} from podman-compose up to the class service's address`)
    const said = (await run('podman', ['logs', container('class')])).stdout
    t.match(said, `API Challenges class ready: learners open ${base}/\n    first request: curl -i -X POST ${base}/challenger\n` +
      `    board: http://127.0.0.1:${boardPort}/admin on this machine only, with your ADMIN_TOKEN\n`)
    t.equal(said.split('learners open').length, 2, 'said once')
    t.match(said, `The landing page, ${base}/, for a phone's camera:`)

    // Both instances ready (their Redis a primary with replicas), asked inside their containers.
    const ready = "fetch('http://127.0.0.1:3000/readyz').then(res => process.exit(res.ok ? 0 : 1), () => process.exit(1))"
    for (const service of ['practice-1', 'practice-2']) {
      await until(`${service} ready`, async () => (await run('podman', ['exec', container(service), 'node', '-e', ready])).code === 0, 60_000, 250)
    }
    // Each instance's own start-up message names PUBLIC_URL, the address learners use, not its container's.
    for (const service of ['practice-1', 'practice-2']) {
      const started = async (): Promise<Record<string, unknown> | undefined> => (await run('podman', ['logs', container(service)])).stdout.trim().split('\n')
        .map(line => JSON.parse(line) as Record<string, unknown>).find(line => String(line.msg).startsWith('API Challenges practice target ready'))
      await until(`${service}'s start-up message`, async () => await started() !== undefined, 30_000, 250)
      t.match(await started(), { address: base, msg: `API Challenges practice target ready: curl -i -X POST ${base}/challenger` }, `${service} says ${base}`)
    }

    await t.test('learners reach the landing page through nginx, with the address they used; the board is on this machine\'s port, not through nginx', async t => {
      const landing = await fetch(`${base}/`)
      t.equal(landing.status, 200)
      t.match(await landing.text(), `${base}/challenger`, 'the port kept (Host: $http_host)')
      t.equal((await fetch(`http://127.0.0.1:${boardPort}/admin/summary`, { headers: { authorization: `Bearer ${TOKEN}` } })).status, 200, 'the board with ADMIN_TOKEN')
      t.equal((await fetch(`${base}/admin/summary`, { headers: { authorization: `Bearer ${TOKEN}` } })).status, 404, 'nginx keeps it from learners')
    })

    await t.test('learners write notes through nginx while practice-1 stops (podman stop: its drain, then exit 0): every note acknowledged is there afterwards', async t => {
      const basic = 'Basic ' + Buffer.from('admin:password').toString('base64')
      const learners: Learner[] = []
      for (let i = 0; i < 8; i++) {
        const guid = (await fetch(`${base}/challenger`, { method: 'POST' })).headers.get('x-challenger') as string
        const token = (await fetch(`${base}/secret/token`, { method: 'POST', headers: { 'x-challenger': guid, authorization: basic } })).headers.get('x-auth-token') as string
        learners.push({ guid, headers: { 'x-challenger': guid, 'x-auth-token': token }, sent: 0, acked: [] })
      }
      const failures: string[] = []
      const state = { running: true }
      const writing = learners.map(async learner => {
        while (state.running) {
          const n = ++learner.sent
          const answer = await fetch(`${base}/secret/note`, {
            method: 'POST', headers: { ...learner.headers, 'content-type': 'application/json' }, body: JSON.stringify({ note: String(n) })
          }).then(async res => ({ status: res.status, body: await res.text() }), (error: Error) => ({ status: 0, body: String(error.cause ?? error) }))
          if (answer.status === 200) learner.acked.push(n)
          else failures.push(`${answer.status} ${answer.body.slice(0, 200)}`)
        }
      })
      const acked = (): number => learners.reduce((sum, learner) => sum + learner.acked.length, 0)
      try {
        await until('200 notes acknowledged', () => acked() >= 200)
        const before = acked()
        const asked = performance.now()
        const stopped = await run('podman', ['stop', '--time', '20', container('practice-1')])
        const took = performance.now() - asked
        t.equal(stopped.code, 0, 'podman stop')
        const during = acked() - before
        await until('200 more notes acknowledged, by practice-2 alone', () => acked() >= before + during + 200)
        state.running = false
        await Promise.all(writing)
        t.comment(`podman stop practice-1: ${seconds(took)}; notes acknowledged: ${before} before it, ${during} while it drained and closed, ${acked() - before - during} after; ${failures.length} not`)
        t.ok(took >= 5000 && took < 20_000, `a drain of 5 s, then the close (${seconds(took)})`)
      } finally {
        state.running = false
        await Promise.all(writing)
      }
      t.same(failures.slice(0, 5), [], 'every note answered 200: nginx sent on what the stopping instance did not take')
      t.equal(await podman('inspect', '--format', '{{.State.ExitCode}}', container('practice-1')), '0', 'practice-1 closed gracefully')
      const log = (await run('podman', ['logs', container('practice-1')])).stdout.trim().split('\n')
      t.equal((JSON.parse(log.at(-1) as string) as { msg: string }).msg, CLOSED)
      t.ok(log.some(line => line.includes('"msg":"draining for 5000 ms')), 'after its drain')

      const lost: string[] = []
      for (const learner of learners) {
        const read = await fetch(`${base}/secret/note`, { headers: learner.headers })
        const held = Number((await read.json() as { note: string }).note)
        const last = learner.acked.at(-1) as number
        // The last acknowledged, or one sent after it whose answer was not 200 (applied all the same).
        if (read.status !== 200 || !(held >= last && held <= learner.sent)) lost.push(`${learner.guid}: holds ${held}, last acknowledged ${last}`)
      }
      t.same(lost, [], `each learner's last acknowledged note is there (${acked()} acknowledged in all)`)
    })
  })
}
