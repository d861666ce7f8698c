// /heartbeat: a monitoring endpoint that answers each method with a fixed status.
// Everything is answered before a body is read: no request to it needs one, and a PATCH with
// or without a body is the same 500.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { bitFor } from '../src/catalogue.js'

const ALLOW = 'GET, HEAD, OPTIONS, PATCH, TRACE'
const HTML = 'text/html;charset=utf-8'
const OVERRIDES = new Set(['DELETE', 'PATCH', 'TRACE'])

const OVERRIDE_BITS = new Map([...OVERRIDES].map(method => [method, bitFor(`POST /heartbeat as ${method}`)]))

/** The method the request stands for (POST can pose as DELETE, PATCH or TRACE) and its challenge bit. */
function effectiveMethod (request: FastifyRequest, bits: Map<string, number>): [method: string, bit: number] {
  const override = request.headers['x-http-method-override']
  if (request.method === 'POST' && typeof override === 'string') {
    const method = override.trim().toUpperCase()
    const bit = OVERRIDE_BITS.get(method)
    if (bit !== undefined) return [method, bit]
  }
  // The route answers only the methods in `bits`.
  return [request.method, bits.get(request.method) as number]
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
  const bits = new Map(fastify.allMethods.map(method => [method, bitFor(`${method} /heartbeat`)]))
  fastify.answerEarly('/heartbeat', fastify.allMethods, async (request, reply) => {
    const [method, bit] = effectiveMethod(request, bits)
    await request.pass(bit)
    return respond(method, reply)
  })
}

export default heartbeat
