// /heartbeat: a monitoring endpoint that answers each method with a fixed status.
// Everything is answered before a body is read: no request to it needs one, and a PATCH with
// or without a body is the same 500.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'

const ALLOW = 'GET, HEAD, OPTIONS, PATCH, TRACE'
const HTML = 'text/html;charset=utf-8'
const OVERRIDES = new Set(['DELETE', 'PATCH', 'TRACE'])

/** The method the request stands for: POST can pose as DELETE, PATCH or TRACE. */
function effectiveMethod (request: FastifyRequest): [method: string, trigger: string] {
  const override = request.headers['x-http-method-override']
  if (request.method === 'POST' && typeof override === 'string') {
    const method = override.trim().toUpperCase()
    if (OVERRIDES.has(method)) return [method, `POST /heartbeat as ${method}`]
  }
  return [request.method, `${request.method} /heartbeat`]
}

function respond (method: string, reply: FastifyReply): FastifyReply {
  switch (method) {
    case 'GET':
    case 'HEAD':
      return reply.code(204).send()
    case 'OPTIONS':
      return reply.code(204).headers({ allow: ALLOW, 'access-control-allow-methods': ALLOW }).send()
    case 'PATCH':
      return reply.code(500).type(HTML).send('')
    case 'TRACE':
      return reply.code(501).type(HTML).send('')
    default:
      return reply.code(405).header('allow', ALLOW).type(HTML).send('')
  }
}

const heartbeat: FastifyPluginAsync = async (fastify) => {
  fastify.answerEarly('/heartbeat', fastify.allMethods, async (request, reply) => {
    const [method, trigger] = effectiveMethod(request)
    await request.passChallenge(trigger)
    return respond(method, reply)
  })
}

export default heartbeat
