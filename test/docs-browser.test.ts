// Swagger UI at /docs in a real headless chromium, used the way a learner uses it: the page renders
// with every asset (at the root and under a host's prefix), and clicks and typing alone create a
// session, authorize it, get a token, write and read the note and call the heartbeat, which passes
// the challenges those requests stand for. A screenshot goes to DOCS_SCREENSHOT_PATH (or a temporary
// file; SCREENSHOT_PATH is the challenges page test's, which runs beside this one).
import Fastify, { type FastifyInstance } from 'fastify'
import { statSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Locator, Page } from 'playwright-core'
import type { Test } from 'tap'
import app from '../src/app.js'
import { createServer } from '../src/server.js'
import { chromiumTest, failure, launch, openPage } from './chromium.js'

const TAGS = ['heartbeat', 'sessions', 'challenges', 'secret', 'grades']

async function listen (t: Test, server: FastifyInstance): Promise<string> {
  t.teardown(() => server.close())
  await server.listen({ port: 0, host: '127.0.0.1' })
  return `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`
}

interface Docs {
  page: Page
  /** Answers of status 400 or more to the page's own files (the page, its assets, the document). */
  refused: string[]
  /** Requests that got no answer at all, and errors thrown in the page. */
  failed: string[]
  /** The requests Swagger UI sent to the API, with the headers a learner authorized. */
  sent: Array<{ method: string, path: string, challenger?: string, token?: string, override?: string, body?: string }>
}

/**
 * A page on `<base>/docs` (no trailing slash, as a learner types it), rendered: the operations are
 * on it and the network is quiet, so every asset it wanted has been answered.
 */
async function openDocs (t: Test, browser: Browser, base: string): Promise<Docs> {
  const page = await openPage(t, browser, { viewport: { width: 1280, height: 800 } })
  const docsPath = `${new URL(base).pathname.replace(/\/$/, '')}/docs`
  const docs: Docs = { page, refused: [], failed: [], sent: [] }
  page.on('response', response => {
    const path = new URL(response.url()).pathname
    // The API's own answers are judged where the learner sees them (405 and 500 are challenges).
    if (response.status() >= 400 && (path === docsPath || path.startsWith(`${docsPath}/`))) docs.refused.push(`${response.status()} ${path}`)
  })
  page.on('requestfailed', request => { const problem = failure(request); if (problem !== null) docs.failed.push(problem) })
  page.on('pageerror', error => { docs.failed.push(`page error: ${error.message}`) })
  page.on('request', request => {
    if (!['fetch', 'xhr'].includes(request.resourceType())) return
    const path = new URL(request.url()).pathname
    if (path.startsWith(docsPath)) return
    const headers = request.headers()
    docs.sent.push({ method: request.method(), path, challenger: headers['x-challenger'], token: headers['x-auth-token'], override: headers['x-http-method-override'], body: request.postData() ?? undefined })
  })
  await page.goto(`${base}/docs`)
  await page.locator('.opblock').first().waitFor()
  await page.waitForLoadState('networkidle')
  return docs
}

/** What a learner sees of a rendered page: the operations and the tag sections. */
async function assertRendered (t: Test, docs: Docs): Promise<void> {
  const { page } = docs
  t.same(docs.refused, [], 'every asset and the document answer below 400')
  t.same(docs.failed, [], 'no request failed and no script error')
  const operations = await page.locator('.opblock').count()
  t.ok(operations > 10, `${operations} operations rendered`)
  const headings = await page.locator('h3.opblock-tag').evaluateAll(tags => tags.map(tag => tag.getAttribute('data-tag')))
  t.same([...headings].sort(), [...TAGS].sort(), 'the operations are grouped under the five tags')
  for (const tag of TAGS) t.ok(await page.locator(`h3.opblock-tag[data-tag="${tag}"]`).isVisible(), `the ${tag} section heading is visible`)
  t.match(await page.locator('.info .title').textContent(), /API Challenges/, 'the title is shown')
}

/** One operation's block, found by what the learner reads on it: the method and the path. */
function operation (page: Page, method: string, path: string): Locator {
  return page.locator(`.opblock.opblock-${method.toLowerCase()}`)
    .filter({ has: page.locator(`.opblock-summary-path[data-path="${path}"]`) })
}

interface Shown { status: string, headers: Record<string, string>, body: string }

/** Opens an operation and presses "Try it out": its form can be filled in now. */
async function open (op: Locator): Promise<Locator> {
  await op.locator('.opblock-summary-control').click()
  await op.locator('.try-out__btn').click()
  return op
}

/** "Execute" (after "Clear" when an answer is shown already), and the answer as the page shows it. */
async function execute (op: Locator): Promise<Shown> {
  const clear = op.locator('button.btn-clear')
  if (await clear.isVisible()) {
    await clear.click()
    await op.locator('.live-responses-table').waitFor({ state: 'detached' })
  }
  await op.locator('button.execute').click()
  const answer = op.locator('.live-responses-table .response')
  await answer.waitFor()
  const status = (await answer.locator('.response-col_status').textContent())?.trim() ?? ''
  const headers: Record<string, string> = {}
  for (const line of await answer.locator('.headerline').allTextContents()) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const body = await answer.locator('.response-col_description').innerText()
  return { status, headers, body }
}

const tryItOut = async (op: Locator): Promise<Shown> => await execute(await open(op))

/** The Authorize dialog at the top of the page: fills each named scheme's inputs in order, then closes. */
async function authorize (page: Page, schemes: Record<string, string[]>): Promise<void> {
  await page.locator('.auth-wrapper .btn.authorize').click()
  for (const [scheme, values] of Object.entries(schemes)) {
    const container = page.locator('.modal-ux .auth-container')
      .filter({ has: page.locator('h4 code').getByText(scheme, { exact: true }) })
    const inputs = container.locator('input')
    for (const [index, value] of values.entries()) await inputs.nth(index).fill(value)
    await container.locator('button.authorize').click()
    // Authorized: the scheme's form says so, and its input turns into asterisks.
    await container.locator('h6', { hasText: 'Authorized' }).waitFor()
  }
  await page.locator('.modal-ux .close-modal').click()
  await page.locator('.modal-ux').waitFor({ state: 'detached' })
}

/** The schemes the Authorize dialog says are authorized, as a learner reads them there. */
async function authorizedSchemes (page: Page): Promise<string[]> {
  await page.locator('.auth-wrapper .btn.authorize').click()
  const containers = page.locator('.modal-ux .auth-container').filter({ has: page.locator('h6', { hasText: 'Authorized' }) })
  const names = await containers.locator('h4 code').allTextContents()
  await page.locator('.modal-ux .close-modal').click()
  await page.locator('.modal-ux').waitFor({ state: 'detached' })
  return names
}

chromiumTest('Swagger UI renders and "Try it out" passes the challenges', async t => {
  const browser = await launch(t)

  t.test('under a host\'s prefix, /practice/docs renders with every asset', async t => {
    const host = Fastify()
    await host.register(app, { prefix: '/practice' })
    const base = `${await listen(t, host)}/practice`
    const docs = await openDocs(t, browser, base)
    await assertRendered(t, docs)
    const { page } = docs
    // The document's servers carry the prefix, so "Try it out" reaches the app where it is mounted:
    // at the first server, the paths at the root, and at the second, under /api.
    const servers = page.locator('.servers select')
    t.same(await servers.locator('option').evaluateAll(options => options.map(option => (option as HTMLOptionElement).value)), ['/practice', '/practice/api'])
    const heartbeat = await open(operation(page, 'GET', '/heartbeat'))
    t.equal((await execute(heartbeat)).status, '204', 'GET /heartbeat from the page, at the first server')
    await servers.selectOption('/practice/api')
    t.equal((await execute(heartbeat)).status, '204', 'and at the second')
    // Naming is one choice away: the body's other example.
    const create = await open(operation(page, 'POST', '/challenger'))
    await create.locator('.examples-select select').selectOption({ label: 'A session named for the class board' })
    t.match(await create.locator('textarea.body-param__text').inputValue(), /"name": "Ada"/)
    const created = await execute(create)
    t.equal(created.status, '201', 'POST /practice/api/challenger from the page')
    t.same(docs.sent.map(request => `${request.method} ${request.path} ${request.body ?? ''}`.trim()),
      ['GET /practice/heartbeat', 'GET /practice/api/heartbeat', 'POST /practice/api/challenger {\n  "name": "Ada"\n}'])
    const session = await (await fetch(`${base}/challenger/${created.headers['x-challenger'] ?? ''}`)).json() as { name?: string }
    t.equal(session.name, 'Ada', 'the session is named')
    t.same(docs.failed, [], 'no request failed and no script error')
  })

  t.test('at the root, a learner passes 01, 25, 26, 28, 30, 33, 34, 40 and 41 with clicks and typing alone', async t => {
    const base = await listen(t, createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: {} }))
    const docs = await openDocs(t, browser, base)
    await assertRendered(t, docs)
    const { page } = docs

    // Untouched, as most learners leave it.
    const created = await tryItOut(operation(page, 'POST', '/challenger'))
    t.equal(created.status, '201', 'POST /challenger creates a session')
    const guid = created.headers['x-challenger'] ?? ''
    t.match(guid, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'the page shows the new X-CHALLENGER header')

    await authorize(page, { challenger: [guid], basic: ['admin', 'password'] })
    t.ok(await page.locator('.auth-wrapper .btn.authorize.locked').isVisible(), 'the Authorize button shows a closed lock')

    const issued = await tryItOut(operation(page, 'POST', '/secret/token'))
    t.equal(issued.status, '201', 'POST /secret/token issues a token')
    const token = issued.headers['x-auth-token'] ?? ''
    t.match(token, /^\S{16,}$/, 'the page shows the X-AUTH-TOKEN header')
    await authorize(page, { authToken: [token] })
    // A reload keeps what was authorized (persistAuthorization): the requests below still carry both.
    await page.reload()
    await page.locator('.opblock').first().waitFor()
    await page.waitForLoadState('networkidle')
    t.ok(await page.locator('.auth-wrapper .btn.authorize.locked').isVisible(), 'after a reload, the lock is still closed')
    t.same((await authorizedSchemes(page)).sort(), ['authToken', 'basic', 'challenger'], 'and the dialog says what is authorized')

    const note = await open(operation(page, 'POST', '/secret/note'))
    await note.locator('textarea.body-param__text').fill('{"note": "from swagger"}')
    const written = await execute(note)
    t.equal(written.status, '200', 'POST /secret/note writes the note')
    t.match(written.body, /"note": "from swagger"/, 'the stored note is shown')
    const read = await tryItOut(operation(page, 'GET', '/secret/note'))
    t.equal(read.status, '200', 'GET /secret/note reads it')
    t.match(read.body, /"note": "from swagger"/, 'the note read back is shown')

    for (const [method, status] of [['GET', '204'], ['DELETE', '405'], ['PATCH', '500']] as const) {
      const shown = await tryItOut(operation(page, method, '/heartbeat'))
      t.equal(shown.status, status, `${method} /heartbeat shows ${status}`)
    }
    // An operation that passes a challenge links the reference's solution page of it, said to be elsewhere.
    const solution = operation(page, 'GET', '/heartbeat').locator('.opblock-description-wrapper a', { hasText: 'Solution (external, apichallenges.com)' }).first()
    t.equal(await solution.getAttribute('href'), 'https://apichallenges.com/apichallenges/solutions/status-codes/get-heartbeat-204', 'GET /heartbeat links the solution of 28')
    // POST standing for another method: the header is a field of the POST operation's form. (Not
    // TRACE: the Fetch standard forbids X-HTTP-Method-Override: TRACE, and chromium drops the header.)
    const post = await open(operation(page, 'POST', '/heartbeat'))
    for (const [method, status] of [['DELETE', '405'], ['PATCH', '500']] as const) {
      await post.locator('tr[data-param-name="x-http-method-override"] input').fill(method)
      t.equal((await execute(post)).status, status, `POST /heartbeat as ${method} shows ${status}`)
    }
    // TRACE itself a browser cannot send: the operation says so, and Execute shows the curl command to
    // copy, with this server and the session in it.
    const trace = await open(operation(page, 'TRACE', '/heartbeat'))
    t.match(await trace.locator('.opblock-description-wrapper').first().innerText(), /curl -i -X TRACE .+\/heartbeat -H "X-CHALLENGER: /, 'the TRACE operation gives the curl command')
    t.match((await execute(trace)).body, /'TRACE' HTTP method is unsupported/, 'Execute on TRACE shows why it cannot be sent')
    const curl = await trace.locator('.curl-command').innerText()
    t.match(curl, "curl -X 'TRACE'", 'and the curl command to send it')
    t.match(curl, `'${base}/heartbeat'`, 'naming this server')
    t.match(curl, `-H 'X-CHALLENGER: ${guid}'`, 'with the session authorized')

    // What Swagger UI sent: the session on every request after the Authorize, the heartbeat's included.
    const [first, ...afterAuthorize] = docs.sent
    t.same(first, { method: 'POST', path: '/challenger', challenger: undefined, token: undefined, override: undefined, body: '{}' }, 'the session was created without X-CHALLENGER, with the body {}')
    t.same(afterAuthorize.map(request => `${request.method} ${request.path}${request.override === undefined ? '' : ` as ${request.override}`}`),
      ['POST /secret/token', 'POST /secret/note', 'GET /secret/note', 'GET /heartbeat', 'DELETE /heartbeat', 'PATCH /heartbeat',
        'POST /heartbeat as DELETE', 'POST /heartbeat as PATCH'], 'the page sent exactly the requests executed')
    t.same(afterAuthorize.filter(request => request.challenger !== guid).map(request => `${request.method} ${request.path}`), [],
      'every request after Authorize carried X-CHALLENGER')
    t.same(afterAuthorize.filter(request => request.path === '/secret/note' && request.token !== token).map(request => request.method), [],
      'the note requests carried X-AUTH-TOKEN')

    // Read without X-CHALLENGER: with it, this read would pass challenge 43 (issue 58).
    const saved = await (await fetch(`${base}/challenger/${guid}`)).json() as { challengeStatus: Record<string, boolean>, name?: string }
    t.notOk('name' in saved, 'the session "Try it out" made untouched has no name')
    const passed = Object.keys(saved.challengeStatus).filter(id => saved.challengeStatus[id] === true)
    t.same(passed.sort(), ['01', '25', '26', '28', '30', '33', '34', '40', '41'], 'the challenges those requests stand for, and no other')

    const shot = process.env.DOCS_SCREENSHOT_PATH ?? join(tmpdir(), `docs-${process.pid}.png`)
    await page.screenshot({ path: shot, fullPage: true })
    t.ok(statSync(shot).size > 1000, `screenshot at ${shot}`)
    t.same(docs.refused, [], 'no asset refused later either')
    t.same(docs.failed, [], 'no request failed and no script error')
  })
})
