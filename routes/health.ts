// GET /livez and /readyz: the operator's probes (Kubernetes, a load balancer), beside /heartbeat,
// which is a challenge. /livez: the process answers. /readyz: the session store is usable, as its own
// probe last found it, and the server is not draining; else 503 with a short reason. Neither waits on
// the store: they are no API route, so the pipeline looks up no session for them and keeps no journal,
// and `config.probe` keeps them out of the metrics. Answered in onRequest, so a body is never read.
import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { EVERY_METHOD } from '../src/domain/http/methods.js'
import { failure } from '../src/domain/http/schemas.js'

const ALLOWED = ['GET', 'HEAD']
const ALLOW = ALLOWED.join(', ')
/** A probe's answer is never cached (a proxy between would answer for a process gone since). */
const HEADERS = { 'cache-control': 'no-store' }
const Ok = Type.Object({ status: Type.Literal('ok') })
const Unavailable = Type.Object({ status: Type.Literal('unavailable'), reason: Type.Union([Type.Literal('draining'), Type.Literal('store unavailable')]) })

const health: FastifyPluginAsync = async (fastify) => {
  const answer = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    reply.headers(HEADERS)
    switch (request.routeOptions.config.probe) {
      case 'live':
        return reply.send({ status: 'ok' })
      case 'ready':
        // Draining first: a load balancer should move away even while the store is fine.
        if (fastify.closing) return reply.code(503).send({ status: 'unavailable', reason: 'draining' })
        if (!fastify.sessions.available()) return reply.code(503).send({ status: 'unavailable', reason: 'store unavailable' })
        return reply.send({ status: 'ok' })
      default:
        return reply.header('allow', ALLOW).fail(405, `${request.method} is not allowed on ${request.url.split('?')[0]}; allowed: ${ALLOW}`)
    }
  }
  // Every other method Node knows: 405.
  const others = fastify.supportedMethods.filter(method => EVERY_METHOD.includes(method) && !ALLOWED.includes(method))
  for (const [url, probe, ok] of [['/livez', 'live', { 200: Ok }], ['/readyz', 'ready', { 200: Ok, 503: Unavailable }]] as const) {
    // Every method, GET included, is answered in onRequest: no body is read, nothing is parsed.
    fastify.route({ method: 'GET', url, schema: { hide: true, response: ok }, config: { probe }, onRequest: answer, handler: answer })
    fastify.route({
      method: others,
      url,
      schema: { hide: true, response: { 405: failure(`Method not allowed; allowed: ${ALLOW}`) } },
      config: { probe: 'refused', refusal: true },
      onRequest: answer,
      handler: answer
    })
  }
}

export default health
