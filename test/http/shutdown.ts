// The drain (the drainSignal option), as a host that embeds the service starts it: the process's own
// SIGTERM drain is in test/process.test.ts.
import Fastify, { type FastifyPluginAsync } from 'fastify'
import { getEventListeners } from 'node:events'
import t from 'tap'
import app from '../../src/app.js'
import { build, newSession } from '../helper.js'

t.test('once drainSignal aborts, every answer says Connection: close and the heartbeat 503; requests are still served', async t => {
  const drain = new AbortController()
  const server = await build(t, { drainSignal: drain.signal })
  const { guid, token } = await newSession(server)
  const before = await server.inject({ method: 'GET', url: '/heartbeat' })
  t.equal(before.statusCode, 204)
  t.equal(before.headers.connection, 'keep-alive', 'kept alive before the drain')

  drain.abort()
  for (const method of ['GET', 'HEAD'] as const) {
    const beat = await server.inject({ method, url: '/heartbeat' })
    t.equal(beat.statusCode, 503, `${method} /heartbeat`)
    t.equal(beat.headers.connection, 'close')
  }
  const note = await server.inject({ method: 'POST', url: '/secret/note', headers: { 'x-challenger': guid, 'x-auth-token': token }, payload: { note: 'while draining' } })
  t.equal(note.statusCode, 200, 'a note write is served')
  t.same(note.json(), { note: 'while draining' })
  t.equal(note.headers.connection, 'close')
  const missing = await server.inject({ method: 'GET', url: '/nowhere' })
  t.equal(missing.statusCode, 404)
  t.equal(missing.headers.connection, 'close', 'early answers too')
})

t.test('a host that embeds the service drains it; the host\'s own routes are its own business', async t => {
  const drain = new AbortController()
  const host = Fastify()
  host.get('/own', async () => ({ mine: true }))
  await host.register(app, { prefix: '/practice', drainSignal: drain.signal })
  t.teardown(() => host.close())
  drain.abort()
  const beat = await host.inject({ method: 'GET', url: '/practice/heartbeat' })
  t.equal(beat.statusCode, 503)
  t.equal(beat.headers.connection, 'close')
  t.equal((await host.inject({ method: 'GET', url: '/own' })).headers.connection, 'keep-alive')
})

t.test('a signal aborted before registration drains from the start', async t => {
  const server = await build(t, { drainSignal: AbortSignal.abort() })
  const beat = await server.inject({ method: 'GET', url: '/heartbeat' })
  t.equal(beat.statusCode, 503)
  t.equal(beat.headers.connection, 'close')
})

t.test('the app lets go of a signal that outlives it', async t => {
  const drain = new AbortController()
  const server = await build(t, { drainSignal: drain.signal })
  t.equal(getEventListeners(drain.signal, 'abort').length, 1)
  await server.close()
  t.equal(getEventListeners(drain.signal, 'abort').length, 0)
})

t.test('drainSignal must be an AbortSignal; an AbortController is named as the likely slip', async t => {
  const loose = app as FastifyPluginAsync<Record<string, unknown>>
  for (const [value, said] of [[new AbortController(), 'an AbortController (pass its signal)'], [true, 'boolean']] as const) {
    const host = Fastify()
    t.teardown(() => host.close())
    await t.rejects(async () => { await host.register(loose, { drainSignal: value }) }, { message: `api-challenges: option drainSignal must be an AbortSignal, got ${said}` })
  }
})
