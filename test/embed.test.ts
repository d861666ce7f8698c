// The service as a plugin inside another Fastify app, under a prefix.
import Fastify from 'fastify'
import t from 'tap'
import app from '../src/app.js'

t.test('mounted under a prefix, every route and message is under it and the host is untouched', async t => {
  const host = Fastify()
  host.get('/own', async () => ({ mine: true }))
  await host.register(app, { prefix: '/practice' })
  t.teardown(() => host.close())

  const heartbeat = await host.inject({ method: 'GET', url: '/practice/heartbeat', headers: { 'x-challenger': 'x' } })
  t.equal(heartbeat.statusCode, 204)
  t.equal(heartbeat.headers['x-challenger'], 'x')
  const refused = await host.inject({ method: 'PUT', url: '/practice/challenges' })
  t.equal(refused.statusCode, 405)
  t.same(refused.json(), { errorMessages: ['PUT is not allowed on /practice/challenges; allowed: GET, HEAD, OPTIONS'] })
  const created = await host.inject({ method: 'POST', url: '/practice/challenger' })
  t.equal(created.statusCode, 201)

  const own = await host.inject({ method: 'GET', url: '/own', headers: { 'x-challenger': 'x' } })
  t.same(own.json(), { mine: true })
  t.equal(own.headers['x-challenger'], undefined, "no echo on the host's routes")
  t.equal(own.headers['access-control-allow-origin'], undefined, "no CORS on the host's routes")
  const missing = await host.inject({ method: 'GET', url: '/elsewhere' })
  t.equal(missing.statusCode, 404)
  t.equal(missing.json().message, 'Route GET:/elsewhere not found', 'the host keeps its own 404')
  t.equal(host.hasDecorator('challengers'), false)
})
