// /heartbeat: a fixed status for each method; a body is never read (the 'ignore' body policy).
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import { Allow, header, html, noBody } from '../src/domain/http/schemas.js'

const ALLOW = 'GET, HEAD, OPTIONS, PATCH, TRACE'
const HTML = 'text/html;charset=utf-8'
interface Bits {
  byMethod: Map<string, number>
  byOverride: Map<string, number>
}

function effectiveMethod (request: FastifyRequest, { byMethod, byOverride }: Bits): [method: string, bit: number] {
  const override = request.headers['x-http-method-override']
  if (request.method === 'POST' && typeof override === 'string') {
    const method = override.trim().toUpperCase()
    const bit = byOverride.get(method)
    if (bit !== undefined) return [method, bit]
  }
  return [request.method, byMethod.get(request.method) ?? 0]
}

/** Sets the answer's status and headers for `method`; its body, always empty, is returned for Fastify to send. */
function respond (method: string, reply: FastifyReply, closing: boolean): '' {
  switch (method) {
    case 'GET':
    case 'HEAD':
      // While the server shuts down or its store is unreachable, a load balancer should send traffic elsewhere.
      if (closing) reply.code(503).type(HTML)
      else reply.code(204)
      break
    case 'OPTIONS':
      reply.code(204).headers({ allow: ALLOW, 'access-control-allow-methods': ALLOW })
      break
    case 'PATCH':
      reply.code(500).type(HTML)
      break
    case 'TRACE':
      reply.code(501).type(HTML)
      break
    default:
      reply.code(405).header('allow', ALLOW).type(HTML)
  }
  return ''
}

const heartbeat: FastifyPluginAsync = async (fastify) => {
  fastify.documentAs('heartbeat')
  fastify.acceptBodies('ignore')
  const bits: Bits = {
    byMethod: new Map([
      ['GET', fastify.bitFor('GET /heartbeat')],
      ['DELETE', fastify.bitFor('DELETE /heartbeat')],
      ['PATCH', fastify.bitFor('PATCH /heartbeat')],
      ['TRACE', fastify.bitFor('TRACE /heartbeat')]
    ]),
    byOverride: new Map([
      ['DELETE', fastify.bitFor('POST /heartbeat as DELETE')],
      ['PATCH', fastify.bitFor('POST /heartbeat as PATCH')],
      ['TRACE', fastify.bitFor('POST /heartbeat as TRACE')]
    ])
  }
  const heartbeat = (request: FastifyRequest, reply: FastifyReply): '' => {
    const [method, bit] = effectiveMethod(request, bits)
    request.pass(bit)
    return respond(method, reply, fastify.closing || !fastify.sessions.available())
  }
  // The same answer from a hook, which must send it itself.
  const answerEarly = (request: FastifyRequest, reply: FastifyReply): void => { reply.send(heartbeat(request, reply)) }
  const notAllowed = html('Method not allowed (challenge 25 for DELETE)', { Allow })
  const running = {
    summary: 'Is the server running?',
    description: 'An X-CHALLENGER over 100 characters is 431 here as on every route; begun with your session id, it passes challenge 47.',
    response: { 204: noBody('Running (challenge 28 for GET)'), 503: html('Shutting down, or the session store is unreachable: send traffic elsewhere') }
  }
  const answers: Array<[string[], object]> = [
    // HEAD before GET, which would otherwise get Fastify's own HEAD route.
    [['HEAD'], { ...running, hide: true }],
    [['GET'], running],
    [['OPTIONS'], { summary: 'The verbs the heartbeat lists', response: { 204: noBody(`Allow: ${ALLOW}`, { Allow, 'Access-Control-Allow-Methods': header('The same methods, for CORS') }) } }],
    [['PATCH'], { summary: 'Fails on purpose', response: { 500: html('Internal server error, with or without a body (challenge 26)') } }],
    [['TRACE'], {
      summary: 'Not implemented',
      description: 'A browser cannot send TRACE (fetch refuses it), so "Try it out" fails here. Send it with curl: ' +
        '`curl -i -X TRACE <this server>/heartbeat -H "X-CHALLENGER: <your session id>"`',
      response: { 501: html('Not implemented (challenge 27)') }
    }],
    // Apart: each operation's description lists its own method's challenges.
    [['DELETE'], { summary: 'Not allowed', response: { 405: notAllowed } }],
    [['PUT'], { summary: 'Not allowed', response: { 405: notAllowed } }],
    [['POST'], {
      summary: 'Not allowed, unless X-HTTP-Method-Override makes it a DELETE, PATCH or TRACE',
      headers: Type.Object({
        'x-http-method-override': Type.Optional(Type.String({
          description: 'DELETE, PATCH or TRACE, any case (challenges 40-42). A browser drops this header when it says TRACE ' +
            '(the Fetch standard forbids it), so challenge 42 needs curl: ' +
            '`curl -i -X POST <this server>/heartbeat -H "X-CHALLENGER: <your session id>" -H "X-HTTP-Method-Override: TRACE"`'
        }))
      }),
      response: {
        405: html('Not allowed: a plain POST, or POST as DELETE (challenge 40)', { Allow }),
        500: html('POST as PATCH (challenge 41)'),
        501: html('POST as TRACE (challenge 42)')
      }
    }]
  ]
  // The heartbeat only tracks progress: it answers (503 for GET) even when the session store is away.
  const config = { sessionOptional: true }
  for (const [method, schema] of answers) fastify.route({ method, url: '/heartbeat', schema, config, handler: heartbeat })
  // Every other method the server knows: 405, answered in onRequest, since Fastify judges some before
  // any handler (a QUERY without a Content-Type is its 400).
  const listed = answers.flatMap(([methods]) => methods)
  const others = fastify.knownMethods().filter(method => !listed.includes(method))
  fastify.route({ method: others, url: '/heartbeat', schema: { hide: true, response: { 405: notAllowed } }, config, onRequest: answerEarly, handler: heartbeat })
}

export default heartbeat
