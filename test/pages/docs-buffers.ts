// The large fixed answers, the OpenAPI document and Swagger UI's files, are each one Buffer sent to every
// request (issue 50, item 1): a copy per connection let clients that do not read fill the heap. What a
// client sees is unchanged: the document, the file, their types, a part of a file, a 304.
import t, { type Test } from 'tap'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { createServer } from '../../src/server.js'

const swaggerUiStatic = join(dirname(createRequire(import.meta.url).resolve('@fastify/swagger-ui')), 'static')

/** The app, and what each answer handed to Node's `end`. */
async function app (t: Test) {
  const server = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: {} })
  t.teardown(() => server.close())
  const ended: unknown[] = []
  server.addHook('onRequest', function watchEnd (_request, reply, done) {
    const end = reply.raw.end
    reply.raw.end = function (this: typeof reply.raw, chunk: unknown, ...rest: unknown[]) {
      ended.push(chunk)
      return (end as (...args: unknown[]) => typeof reply.raw).call(this, chunk, ...rest)
    } as typeof end
    done()
  })
  await server.ready()
  return { server, ended }
}

t.test('GET /docs/json and /docs/yaml: the same Buffer for every request, the document as before', async t => {
  const { server, ended } = await app(t)
  for (const [url, type] of [['/docs/json', 'application/json; charset=utf-8'], ['/docs/yaml', 'application/x-yaml']] as const) {
    ended.length = 0
    const first = await server.inject({ method: 'GET', url })
    const second = await server.inject({ method: 'GET', url })
    t.equal(first.statusCode, 200, url)
    t.equal(first.headers['content-type'], type, url)
    t.equal(second.body, first.body, url)
    t.ok(Buffer.isBuffer(ended[0]) && ended[0] === ended[1], `${url}: one Buffer, sent twice`)
  }
  const json = await server.inject({ method: 'GET', url: '/docs/json' })
  const document = json.json<{ openapi: string, paths: Record<string, unknown> }>()
  t.equal(document.openapi, '3.0.3', 'the JSON is the document')
  t.ok(Object.keys(document.paths).includes('/secret/note'))
  const yaml = await server.inject({ method: 'GET', url: '/docs/yaml' })
  t.match(yaml.body, /^openapi: 3\.0\.3\n/, 'the YAML is the document')
  t.ok(Object.keys(document.paths).every(path => yaml.body.includes(`\n  ${path}:\n`)), 'with every path of the JSON')
  const head = await server.inject({ method: 'HEAD', url: '/docs/json' })
  t.equal(head.headers['content-length'], String(json.rawPayload.length), 'HEAD: the length, no body')
  t.equal(head.body, '')
})

t.test('a Swagger UI file: the same Buffer for every whole answer, shared by every server of the process; a part or a 304 as @fastify/static makes it', async t => {
  const { server, ended } = await app(t)
  const { server: other, ended: otherEnded } = await app(t)
  const url = '/docs/static/swagger-ui-bundle.js'
  const file = readFileSync(join(swaggerUiStatic, 'swagger-ui-bundle.js'))
  const first = await server.inject({ method: 'GET', url })
  const second = await server.inject({ method: 'GET', url })
  t.equal(first.statusCode, 200)
  t.ok(first.rawPayload.equals(file), 'the file, whole')
  t.equal(first.headers['content-length'], String(file.length))
  t.match(first.headers['content-type'], /^application\/javascript/)
  t.ok(typeof first.headers.etag === 'string' && typeof first.headers['last-modified'] === 'string', '@fastify/static\'s validators')
  t.ok(Buffer.isBuffer(ended[1]) && ended[1] === ended[0] && second.rawPayload.equals(file), 'one Buffer, sent twice')
  await other.inject({ method: 'GET', url })
  t.equal(otherEnded[0], ended[0], 'and by another server')
  const part = await server.inject({ method: 'GET', url, headers: { range: 'bytes=0-99' } })
  t.equal(part.statusCode, 206)
  t.ok(part.rawPayload.equals(file.subarray(0, 100)), 'a part: streamed from the file')
  const unchanged = await server.inject({ method: 'GET', url, headers: { 'if-none-match': first.headers.etag as string } })
  t.equal(unchanged.statusCode, 304)
  t.equal(unchanged.body, '')
})
