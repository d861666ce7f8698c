// Every XML answer is well-formed by a real XML parser (issue 50, item 7): chromium's DOMParser reads the
// answers of GET /secret/note, GET /challenger/{guid} and the journal, fetched over a socket, while the
// store holds characters XML 1.0 cannot carry (as an older version or a host's own store may).
import type { AddressInfo } from 'node:net'
import { createServer } from '../src/server.js'
import { MemoryStore } from '../src/domain/sessions/memory-store.js'
import { chromiumTest, launch, openPage } from './chromium.js'

const UNFIT = '\u0000\u0001\u001f\ufffe\uffff\ud800'

chromiumTest('chromium\'s DOMParser finds every XML answer well-formed, whatever the store holds', async t => {
  const store = new MemoryStore({})
  const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { store } })
  t.teardown(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const guid = (await fetch(`${base}/challenger`, { method: 'POST' })).headers.get('x-challenger') as string
  const token = (await fetch(`${base}/secret/token`, { method: 'POST', headers: { 'x-challenger': guid, authorization: `Basic ${btoa('admin:password')}` } })).headers.get('x-auth-token') as string
  const refused = await fetch(`${base}/secret/note`, { method: 'POST', headers: { 'x-challenger': guid, 'x-auth-token': token, 'content-type': 'application/json' }, body: JSON.stringify({ note: `a${UNFIT}` }) })
  t.equal(refused.status, 400, 'such a note is refused when sent')
  await store.update(guid, { note: `a${UNFIT}z` })
  await store.setName(guid, `N${UNFIT}`)
  const [entry] = await store.journal(guid) ?? []
  if (entry === undefined) throw new Error('no journal entry')
  await store.record(guid, { ...entry, path: `/p${UNFIT}` })

  const browser = await launch(t)
  const page = await openPage(t, browser)
  await page.goto(`${base}/`)
  const verdicts = await page.evaluate(async ({ guid, token }) => {
    const read = async (path: string, headers: Record<string, string>): Promise<[string, number, string]> => {
      const answer = await fetch(path, { headers: { ...headers, accept: 'application/xml' } })
      const document = new DOMParser().parseFromString(await answer.text(), 'application/xml')
      const error = document.getElementsByTagName('parsererror')[0]
      return [path, answer.status, error === undefined ? 'well-formed' : (error.textContent ?? 'parsererror')]
    }
    return [
      await read('/secret/note', { 'x-challenger': guid, 'x-auth-token': token }),
      await read(`/challenger/${guid}`, {}),
      await read(`/challenger/${guid}/requests`, {}),
      await read('/secret/note', {})
    ]
  }, { guid, token })
  t.same(verdicts, [
    ['/secret/note', 200, 'well-formed'],
    [`/challenger/${guid}`, 200, 'well-formed'],
    [`/challenger/${guid}/requests`, 200, 'well-formed'],
    ['/secret/note', 401, 'well-formed']
  ])
})
