// The Dockerfile's image as `docker run` runs it (with podman; test/containers.ts makes its base):
// its settings, a non-root user, the challenge flow through a published port, its HEALTHCHECK,
// grade on its production dependencies alone, and `podman stop`: the drain, then exit 0. The
// figures in docs/operations.md ("Run it in a container") are this test's comments.
import t from 'tap'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { imageSizeMb, podman, podmanMissing, practiceImage, run } from './containers.js'
import { root } from './processes.js'
import { freePort } from './redis-server.js'
import { until } from './until.js'

// A first build downloads every dependency inside the build: minutes on a busy machine.
t.setTimeout(900_000)

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`
const CLOSED = 'server closed: listener, connections and session store; the process exits'

if (podmanMissing !== false && process.env.CI === 'true') {
  t.fail(podmanMissing)
} else {
  t.test('the image built from the Dockerfile', { skip: podmanMissing }, async t => {
    const { image, buildMs } = await practiceImage(t)
    t.comment(`podman build: ${seconds(buildMs)} (cached layers make it seconds); the image: ${(await imageSizeMb(image)).toFixed(0)} MB`)

    const [inspected] = JSON.parse(await podman('image', 'inspect', image)) as Array<{ Config: Record<string, unknown>, Healthcheck?: { Test: string[] } }>
    const config = inspected?.Config ?? {}
    t.match(config, { User: '1000:1000', Cmd: ['node', 'dist/src/server.js'], StopSignal: 'SIGTERM' }, 'node itself as the command, and a user by number')
    const healthcheck = inspected?.Healthcheck
    t.match(healthcheck, { Test: ['CMD', 'node', '-e', /\/livez'/] }, 'the HEALTHCHECK kept (--format docker)')
    t.ok((config.Env as string[]).includes('HOST=0.0.0.0') && (config.Env as string[]).includes('PORT=3000'), 'HOST and PORT in the image')

    const port = await freePort()
    const name = `api-challenges-test-${process.pid}`
    t.teardown(() => run('podman', ['rm', '--force', '--time', '0', name]))
    const base = `http://127.0.0.1:${port}`
    const began = performance.now()
    // The address learners use, as docs/operations.md has it given: here the published port on loopback.
    await podman('run', '--detach', '--name', name, '--publish', `127.0.0.1:${port}:3000`, '--env', `PUBLIC_URL=${base}/`, '--stop-timeout', '20', image)
    const up = await until('/livez through the published port', async () => (await fetch(`${base}/livez`)).status === 200, 60_000)
    t.comment(`start: ${seconds(up - began)} from podman run to /livez's 200`)

    await t.test('its start-up message names PUBLIC_URL, not the container\'s own address, which it still lists', async t => {
      const started = async (): Promise<Record<string, unknown> | undefined> => (await run('podman', ['logs', name])).stdout.trim().split('\n')
        .map(line => JSON.parse(line) as Record<string, unknown>).find(line => String(line.msg).startsWith('API Challenges practice target ready'))
      await until('the start-up message', async () => await started() !== undefined)
      const ready = await started()
      t.equal(ready?.msg, `API Challenges practice target ready: curl -i -X POST ${base}/challenger`)
      t.match(ready, { address: base, landingPage: `${base}/`, docs: `${base}/docs`, addresses: [/^http:\/\/[\d.]+:3000$/] })
    })

    await t.test('node runs as PID 1 as the user 1000, not root', async t => {
      const status = await podman('exec', name, 'cat', '/proc/1/status')
      t.match(status, /^Uid:\s+1000\s+1000\s+1000\s+1000$/m, 'uid 1000, real and effective')
      t.equal((await podman('exec', name, 'cat', '/proc/1/cmdline')).split('\0').join(' ').trim(), 'node dist/src/server.js', 'signals reach the server itself')
      t.equal(await podman('exec', name, 'id', '-un'), 'node', 'the official images\' node user')
    })

    await t.test('the challenge flow through the published port: a session, a token, a note written and read back', async t => {
      const created = await fetch(`${base}/challenger`, { method: 'POST' })
      t.equal(created.status, 201)
      const guid = created.headers.get('x-challenger') as string
      t.match(guid, /^[0-9a-f-]{36}$/)
      const issued = await fetch(`${base}/secret/token`, { method: 'POST', headers: { 'x-challenger': guid, authorization: 'Basic ' + Buffer.from('admin:password').toString('base64') } })
      t.equal(issued.status, 201)
      const headers = { 'x-challenger': guid, 'x-auth-token': issued.headers.get('x-auth-token') as string }
      const written = await fetch(`${base}/secret/note`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{"note":"written in a container"}' })
      t.equal(written.status, 200)
      const read = await fetch(`${base}/secret/note`, { headers })
      t.equal(read.status, 200)
      t.same(await read.json(), { note: 'written in a container' })
    })

    await t.test('its HEALTHCHECK passes, and fails where nothing answers', async t => {
      const checked = await run('podman', ['healthcheck', 'run', name])
      t.same([checked.code, checked.stdout.trim()], [0, ''], 'podman healthcheck run: healthy')
      const test = healthcheck?.Test.slice(1) ?? []
      const elsewhere = await run('podman', ['exec', '--env', 'PORT=1', name, ...test])
      t.equal(elsewhere.code, 1, 'the same command against a port nobody listens on')
    })

    await t.test('idle, it holds a modest memory', async t => {
      const status = await podman('exec', name, 'cat', '/proc/1/status')
      const mib = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1]) / 1024
      const stats = await podman('stats', '--no-stream', '--format', '{{.MemUsage}}', name)
      t.comment(`idle memory: node's resident set ${mib('VmRSS').toFixed(0)} MiB, of which its own (RssAnon: heap and the like) ${mib('RssAnon').toFixed(0)} MiB ` +
        `and the rest the node binary's pages; the container's cgroup (podman stats) ${stats}`)
      t.ok(mib('RssAnon') > 10 && mib('RssAnon') < 120, `its own memory: ${mib('RssAnon').toFixed(0)} MiB`)
      t.ok(mib('VmRSS') < 250, `resident: ${mib('VmRSS').toFixed(0)} MiB`)
    })

    await t.test('grade runs in the image, on its production dependencies alone', async t => {
      const suite = join(root, 'test', 'fixtures', 'suites', 'weak')
      const graded = await run('podman', ['run', '--rm', '--volume', `${suite}:/suite:ro`, image,
        'node', 'dist/src/server.js', 'grade', '--json', '--only', 'heartbeat-200,any-password', '--', 'node', '--test', '/suite/api.test.mjs'])
      t.equal(graded.code, 0, graded.code === 0 ? 'graded' : graded.stderr.slice(-2000))
      const result = JSON.parse(graded.stdout) as { caught: number, total: number, mutants: Array<{ id: string, outcome: string }> }
      t.same([result.caught, result.total], [1, 2], 'the weak suite catches the heartbeat\'s 200, not any password')
      t.same(result.mutants.map(({ id, outcome }) => [id, outcome === 'killed']).sort(), [['any-password', false], ['heartbeat-200', true]])
    })

    await t.test('podman stop: SIGTERM drains (/readyz 503, /livez 200, Connection: close), then the server closes and exits 0', async t => {
      const asked = performance.now()
      const stopped = run('podman', ['stop', '--time', '20', name])
      await until('/readyz says draining', async () => {
        const res = await fetch(`${base}/readyz`)
        return res.status === 503 && (await res.json() as { reason: string }).reason === 'draining'
      })
      const live = await fetch(`${base}/livez`)
      t.equal(live.status, 200, '/livez still 200 while draining')
      t.equal(live.headers.get('connection'), 'close')
      const { code, stderr } = await stopped
      const took = performance.now() - asked
      t.equal(code, 0, code === 0 ? 'podman stop' : stderr)
      t.equal(await podman('inspect', '--format', '{{.State.ExitCode}}', name), '0', 'a graceful close, not the stop timeout\'s SIGKILL')
      t.ok(took >= 5000 && took < 20_000, `stopped in ${seconds(took)}: the 5 s drain, then the close, within the 20 s`)
      t.comment(`podman stop: ${seconds(took)}, exit code 0`)
      const last = JSON.parse((await run('podman', ['logs', name])).stdout.trim().split('\n').at(-1) as string) as { msg: string }
      t.equal(last.msg, CLOSED)
    })
  })
}
