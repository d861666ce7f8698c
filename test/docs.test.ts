// The OpenAPI document: valid OpenAPI 3, every route of the app in it, and every documented answer of
// the secret and heartbeat routes produced by a real request.
import SwaggerParser from '@apidevtools/swagger-parser'
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify'
import { readFileSync } from 'node:fs'
import t, { type Test } from 'tap'
import app from '../src/app.js'
import { VERSION } from '../src/domain/options.js'
import type { AddressInfo } from 'node:net'
import { basic } from './helper.js'
import { begun, listenerClosed } from './sockets.js'

interface Operation { responses: Record<string, unknown>, security?: unknown }
type OpenApi = { paths: Record<string, Record<string, Operation>>, components: { securitySchemes: Record<string, unknown> }, info: { version: string } }

const DOCUMENTABLE = new Set(['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'TRACE'])
// Path parameters as OpenAPI writes them; the prefix's own root without its slash, which
// @fastify/swagger writes one way for GET and the other for HEAD.
const openApiPath = (url: string): string => url.replace(/:(\w+)/g, '{$1}').replace(/^\/practice\/$/, '/practice')

/** A host with the app under /practice, recording every route it registers and every answer it gives. */
async function host (t: Test) {
  const routes = new Set<string>()
  const answered = new Set<string>()
  // return503OnClosing off, as src/server.ts sets it, so answers during a close come from the app.
  const server: FastifyInstance = Fastify({ return503OnClosing: false, forceCloseConnections: false })
  const registered: RouteOptions[] = []
  // The app's own onRoute hooks run after this one on the same options: read them once all are in.
  server.addHook('onRoute', route => { registered.push(route) })
  server.addHook('onReady', async () => {
    for (const route of registered) {
      const schema = route.schema as { hide?: boolean, response?: Record<string, unknown> } | undefined
      // Marked hidden: see the test below for which.
      const hidden = schema?.hide === true ? `hidden${Object.keys(schema.response ?? {}).join() === '405' ? '-405' : ''} ` : ''
      for (const method of [route.method].flat()) routes.add(`${hidden}${method} ${openApiPath(route.url)}`)
    }
  })
  server.addHook('onResponse', async (request, reply) => {
    answered.add(`${request.method} ${openApiPath(request.routeOptions.url ?? '')} ${reply.statusCode}`)
  })
  await server.register(app, { prefix: '/practice', creationRateLimit: 2 })
  t.teardown(() => server.close())
  await server.ready()
  return { server, routes, answered }
}

t.test('the document is valid OpenAPI 3 with the security schemes', async t => {
  const { server } = await host(t)
  const res = await server.inject('/practice/docs/json')
  t.equal(res.statusCode, 200)
  const doc = res.json() as OpenApi
  await t.resolves(SwaggerParser.validate(structuredClone(doc) as never), 'valid')
  t.same(Object.keys(doc.components.securitySchemes).sort(), ['authToken', 'basic', 'bearer', 'challenger'])
  t.same(doc.components.securitySchemes.authToken, { type: 'apiKey', in: 'header', name: 'X-AUTH-TOKEN', description: 'Your token, from POST /secret/token' })
  t.equal(doc.info.version, VERSION)
  t.equal(VERSION, JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version, 'the version is the package\'s')
  const yaml = await server.inject('/practice/docs/yaml')
  t.equal(yaml.statusCode, 200)
  t.match(yaml.body, /^openapi: 3\.0\.3/m)
  const ui = await server.inject('/practice/docs')
  t.equal(ui.statusCode, 200, 'Swagger UI is served')
})

t.test('every asset the Swagger UI page loads answers 200 under the prefix', async t => {
  const { server } = await host(t)
  const page = await server.inject('/practice/docs')
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], /^text\/html/)
  const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map(match => new URL(match[1] as string, 'http://host/practice/docs/').pathname)
  t.ok(assets.length >= 5, `${assets.length} assets: ${assets.join(', ')}`)
  t.ok(assets.every(path => path.startsWith('/practice/docs/static/')), 'all under the prefix')
  // The initializer names the document relative to the page (/practice/docs/json); the page is
  // blank when any of these is missing.
  const initializer = assets.find(path => path.endsWith('swagger-initializer.js')) as string
  t.match((await server.inject(initializer)).body, /resolveUrl\('\.\/json'\)/)
  t.equal((await server.inject('/practice/docs/json')).statusCode, 200)
  for (const path of assets) {
    const res = await server.inject(path)
    t.equal(res.statusCode, 200, path)
    t.ok(Number(res.headers['content-length'] ?? res.body.length) > 0, `${path} has a body`)
  }
  t.equal((await server.inject({ method: 'OPTIONS', url: '/practice/docs/static/index.css' })).statusCode, 404, 'OPTIONS on an asset is still 404')
})

t.test('every route the app registers is in the document, but the docs and methods OpenAPI cannot name', async t => {
  const { server, routes } = await host(t)
  const doc = (await server.inject('/practice/docs/json')).json() as OpenApi
  const documented = new Set(Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map(m => `${m.toUpperCase()} ${openApiPath(path)}`)))
  const expected = [...routes].filter(route => !route.startsWith('hidden'))
  const hidden = [...routes].filter(route => route.startsWith('hidden')).map(route => route.split(' ') as [string, string, string])
  const page = /^\/practice(\/gui\/.*)?$/
  t.same(hidden.filter(([kind, method, path]) => DOCUMENTABLE.has(method) && !path.startsWith('/practice/docs') && path !== '/practice*' &&
    !page.test(path) && !(kind === 'hidden-405' && path !== '/practice/heartbeat')), [],
  'only the docs, the CORS catch-all, the pages, the generic 405s and odd methods are hidden')
  t.ok(hidden.some(([kind, method, path]) => kind === 'hidden-405' && method === 'DELETE' && path === '/practice/secret/note'), 'a generic 405 is hidden')
  t.ok(hidden.some(([, method, path]) => method === 'GET' && path === '/practice/gui/challenges/{guid}'), 'a page is hidden')
  for (const method of ['delete', 'put', 'post', 'patch', 'trace', 'get', 'options']) {
    t.ok(doc.paths['/practice/heartbeat']?.[method] !== undefined, `the heartbeat's ${method} stays: it is a challenge or lists the verbs`)
  }
  t.same(expected.filter(route => !documented.has(route)), [], 'nothing undocumented')
  t.same([...documented].filter(route => !routes.has(route)), [], 'nothing documented that is not there')
  t.ok(expected.length > 20, `${expected.length} routes`)
  t.notOk(Object.values(doc.paths).some(ops => 'propfind' in ops), 'PROPFIND and the like are left out')
})

t.test('every documented answer of the secret and heartbeat routes is produced by a request', async t => {
  const { server, answered } = await host(t)
  const doc = (await server.inject('/practice/docs/json')).json() as OpenApi
  const send = (method: string, url: string, headers: Record<string, string> = {}, payload?: string) =>
    server.inject({ method: method as 'GET', url: `/practice${url}`, headers, payload })
  const guid = (await send('POST', '/challenger')).headers['x-challenger'] as string
  const token = (await send('POST', '/secret/token', { 'x-challenger': guid, authorization: basic('admin', 'password') })).headers['x-auth-token'] as string
  const me = { 'x-challenger': guid, 'x-auth-token': token }
  const json = { 'content-type': 'application/json' }
  await send('POST', '/secret/token', { 'x-challenger': guid })
  await send('POST', '/secret/token', { 'x-challenger': guid, 'content-type': 'text/plain' }, 'x'.repeat(20_000))
  await send('POST', '/secret/token', { 'x-challenger': guid, 'content-type': 'not a media type' }, 'x')
  for (const method of ['GET', 'HEAD']) {
    await send(method, '/secret/note', me)
    await send(method, '/secret/note', { 'x-challenger': guid })
    await send(method, '/secret/note', { ...me, 'x-auth-token': 'wrong' })
  }
  await send('POST', '/secret/note', { ...me, ...json }, '{"note":"n"}')
  await send('POST', '/secret/note', { ...me, ...json }, '{"note":1}')
  await send('POST', '/secret/note', { 'x-challenger': guid, ...json }, '{"note":"n"}')
  await send('POST', '/secret/note', { ...me, 'x-auth-token': 'wrong', ...json }, '{"note":"n"}')
  await send('POST', '/secret/note', { ...me, ...json }, JSON.stringify({ note: 'x'.repeat(20_000) }))
  await send('POST', '/secret/note', { ...me, 'content-type': 'text/plain' }, 'n')
  for (const method of ['GET', 'HEAD', 'OPTIONS', 'PATCH', 'TRACE', 'DELETE', 'PUT', 'POST']) await send(method, '/heartbeat')
  for (const override of ['PATCH', 'TRACE']) await send('POST', '/heartbeat', { 'x-http-method-override': override })
  for (const url of ['/secret/note', '/secret/token']) {
    for (const method of ['OPTIONS', 'GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'TRACE']) await send(method, url)
  }
  // The heartbeat's 503 comes only while the server closes, to a request already on a connection.
  await server.listen({ port: 0, host: '127.0.0.1' })
  const port = (server.server.address() as AddressInfo).port
  const late = ['GET', 'HEAD'].map(method => begun(port, `${method} /practice/heartbeat HTTP/1.1\r\nHost: x\r\n`))
  await fetch(`http://127.0.0.1:${port}/practice/heartbeat`)
  const closed = server.close()
  await listenerClosed(port)
  for (const request of late) t.match(await request.finish('\r\n'), /^HTTP\/1\.1 503 /)
  await closed
  const missing: string[] = []
  for (const [path, ops] of Object.entries(doc.paths)) {
    if (!/^\/practice\/(secret|heartbeat)/.test(path)) continue
    for (const [method, op] of Object.entries(ops)) {
      for (const status of Object.keys(op.responses)) {
        const key = `${method.toUpperCase()} ${path} ${status}`
        if (!answered.has(key)) missing.push(key)
      }
    }
  }
  t.same(missing, [])
})

t.test('docs: false serves no document', async t => {
  const server = Fastify()
  await server.register(app, { docs: false })
  t.teardown(() => server.close())
  t.equal((await server.inject('/docs/json')).statusCode, 404)
  t.equal((await server.inject('/heartbeat')).statusCode, 204)
})

t.test('documentAs files a plugin\'s operations under its tag, with the optional X-CHALLENGER unless a route names its own', async t => {
  const { default: swagger } = await import('@fastify/swagger')
  const { default: openapi } = await import('../plugins/openapi.js')
  const server = Fastify()
  t.teardown(() => server.close())
  const schemes = { challenger: { type: 'apiKey', in: 'header', name: 'X-CHALLENGER' }, basic: { type: 'http', scheme: 'basic' } } as const
  await server.register(swagger, { openapi: { openapi: '3.0.3', info: { title: 't', version: '1' }, components: { securitySchemes: schemes } } })
  await server.register(openapi)
  await server.register(async plugin => {
    plugin.documentAs('heartbeat')
    plugin.get('/bare', async () => 'no schema at all')
    plugin.get('/own', { schema: { security: [{ basic: [] }] } }, async () => 'its own requirement')
  })
  await server.ready()
  const paths = (server.swagger() as unknown as OpenApi).paths
  t.same(paths['/bare']?.get, { tags: ['heartbeat'], security: [{ challenger: [] }, {}], responses: { 200: { description: 'Default Response' } } })
  t.same(paths['/own']?.get?.security, [{ basic: [] }])
})
