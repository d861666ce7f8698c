// Content negotiation: Accept picks JSON (the default) or XML (@fastify/accepts) as `request.format`, and
// a route's `config.xml` serializes its payload as XML (`fastify.toXml`, the pipeline's format step).
// The 406 is plugins/acceptable.ts's.
import accepts from '@fastify/accepts'
import type { FastifyInstance, FastifyRequest, preSerializationHookHandler } from 'fastify'
import fp from 'fastify-plugin'

export type Format = 'json' | 'xml'

declare module 'fastify' {
  interface FastifyRequest {
    /** The body format Accept asks for; null when it allows neither JSON nor XML. */
    format: Format | null
    /** The media type to answer XML with: application/xml or text/xml, as asked. */
    xmlType: string
  }
  interface FastifyInstance {
    /** The pipeline's format step: the payload `change`d (a defect's), then, for a route with an XML form, a successful payload as `xml` writes it when XML was asked for. */
    toXml (xml: ((payload: never) => string) | undefined, change?: (request: FastifyRequest, payload: unknown) => unknown): preSerializationHookHandler<unknown>
  }
  interface FastifyContextConfig {
    xml?: (payload: never) => string
  }
}

const TYPES = ['application/json', 'application/xml', 'text/xml']

interface Negotiation {
  format: Format | null
  xmlType: string
}

const JSON_ANSWER: Negotiation = Object.freeze({ format: 'json', xmlType: 'application/xml' })
const NOT_ACCEPTABLE: Negotiation = Object.freeze({ format: null, xmlType: 'application/xml' })

function negotiate (request: FastifyRequest): Negotiation {
  const accept = request.headers.accept
  if (accept === undefined || accept === '*/*' || accept === 'application/json') return JSON_ANSWER
  const chosen = request.accepts().type(TYPES)
  if (chosen === false) return NOT_ACCEPTABLE
  return chosen === 'application/json' ? JSON_ANSWER : { format: 'xml', xmlType: chosen as string }
}

function negotiated (request: FastifyRequest & { negotiation: Negotiation | null }): Negotiation {
  request.negotiation ??= negotiate(request)
  return request.negotiation
}

async function formats (fastify: FastifyInstance): Promise<void> {
  await fastify.register(accepts)
  fastify.decorateRequest('negotiation', null)
  fastify.decorateRequest('format', { getter (this: FastifyRequest) { return negotiated(this as FastifyRequest & { negotiation: Negotiation | null }).format } })
  fastify.decorateRequest('xmlType', { getter (this: FastifyRequest) { return negotiated(this as FastifyRequest & { negotiation: Negotiation | null }).xmlType } })

  // A successful payload of a route with an XML form (error bodies are reply.fail's).
  fastify.decorate('toXml', function (xml: ((payload: never) => string) | undefined, change?: (request: FastifyRequest, payload: unknown) => unknown): preSerializationHookHandler<unknown> {
    return function toXml (request, reply, payload, done) {
      if (xml !== undefined && reply.statusCode < 400 && request.format === 'xml') {
        reply.type(`${request.xmlType}; charset=utf-8`).serializer(xml as (payload: unknown) => string)
      }
      done(null, change === undefined ? payload : change(request, payload))
    }
  })
}

export default fp(formats, { name: 'formats', fastify: '5.x' })
