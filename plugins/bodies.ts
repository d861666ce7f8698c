// Request bodies, one policy per route plugin, within the service's limit (413); by default read and dropped.
// With 'json', a body's 415 or 400 is set aside and answered by the body's verdict (`fastify.bodyVerdict`,
// the pipeline's last preHandler, after the token's), and a body without a Content-Type is read as
// JSON: both as the reference does. An XML body is kept as text and read only once the token has
// passed, by the verdict: a stranger's XML costs what the same bytes of JSON cost. Which routes get
// these steps is plugins/pipeline.ts's to say (`fastify.setsAside`: the routes that take a body).
import { errorCodes, type FastifyError, type FastifyInstance, type FastifyRequest, type preHandlerHookHandler, type preParsingHookHandler, type RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { BadXmlBodyError } from '../src/domain/http/errors.js'

export type BodyPolicy = 'json' | 'optional-json' | 'none' | 'ignore'

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Sets the body policy of the calling plugin; with 'json', `xml` reads XML bodies (it throws to refuse one).
     * The plugin's requests carry the body steps' fields (bodyError, xmlText); no other request does.
     */
    acceptBodies (policy: BodyPolicy, options?: { xml?: (text: string) => unknown }): void
    /** The pipeline's preParsing step: a Content-Type that is no media type, set aside for the verdict. */
    setAside: preParsingHookHandler
    /** Whether `route`, registered on `instance`, gets setAside: it takes a body, or reads none but may be sent one. */
    setsAside (instance: FastifyInstance, route: RouteOptions): boolean
    /** The pipeline's body step for a route of `instance` with a body schema: XML read (where the plugin reads it), `change`d, then judged. */
    bodyVerdict (instance: FastifyInstance, change?: (request: FastifyRequest) => void): preHandlerHookHandler
  }
  // Absent (undefined) on a route of a plugin that takes no body (acceptBodies): the challenges, the 404, the pages.
  interface FastifyRequest {
    /** Why the body cannot be used (415 or 400), kept until the route's preHandlers have run. */
    bodyError?: FastifyError | null
    /** An XML body as it came, until the body's verdict reads it. */
    xmlText?: string | null
  }
}

export interface BodiesOptions {
  bodyLimit: number
}

type Done = (error: Error | null, body?: unknown) => void

function badRequest (error: Error): FastifyError {
  return new BadXmlBodyError(error.message, { cause: error })
}

// Fastify would refuse a Content-Type that is no media type ("text") before the token is judged: it is
// set aside here, and its 415 (with the header as sent) comes after the token's verdict.
const setAside: preParsingHookHandler = function setAside (request, _reply, payload, done) {
  const type = request.headers['content-type']
  if (type !== undefined && request.mediaType === undefined) {
    delete request.headers['content-type']
    request.bodyError = Object.assign(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(), { contentType: type })
  }
  done(null, payload)
}

/** The app's validator (TypeBox's compiler, src/app.ts): the value, or the errors. */
type Validate = (body: unknown) => { value?: unknown, error?: Array<{ instancePath: string, message: string }> }

/** A validation error as Fastify makes one, for a body validated after its parsing. */
function validationError (errors: Array<{ instancePath: string, message: string }>): NonNullable<FastifyRequest['validationError']> {
  const message = errors.map(error => `body${error.instancePath}: ${error.message}`).join('; ')
  return Object.assign(new Error(message), { code: 'FST_ERR_VALIDATION', statusCode: 400, validationContext: 'body', validation: errors })
}

/** Where a route plugin keeps its body policy and its XML reader (acceptBodies), for the pipeline's steps. */
const POLICY = Symbol('api-challenges.body-policy')
interface Policed { [POLICY]?: { policy: BodyPolicy, xml?: ((text: string) => unknown) | undefined } }

/** Reads a body kept as XML text (the schema judged a stand-in), and validates it by the route's schema as Fastify validates JSON. */
function readXml (request: FastifyRequest, xml: (text: string) => unknown): void {
  const text = request.xmlText
  if (typeof text !== 'string') return
  request.xmlText = null
  request.validationError = undefined
  try {
    request.body = xml(text)
  } catch (error) {
    request.bodyError = badRequest(error as Error)
    return
  }
  const verdict = (request.getValidationFunction('body') as unknown as Validate)(request.body)
  if (verdict.error !== undefined) request.validationError = validationError(verdict.error)
}

async function bodies (fastify: FastifyInstance, options: BodiesOptions): Promise<void> {
  const { bodyLimit } = options
  fastify.decorate('setAside', setAside)
  fastify.decorate('setsAside', function (instance: FastifyInstance, route: RouteOptions): boolean {
    if (route.schema?.body !== undefined) return true
    return (instance as Policed)[POLICY]?.policy === 'ignore' && [route.method].flat().some(method => method !== 'GET' && method !== 'HEAD')
  })
  fastify.decorate('bodyVerdict', function (instance: FastifyInstance, change?: (request: FastifyRequest) => void): preHandlerHookHandler {
    const xml = (instance as Policed)[POLICY]?.xml
    return function judgeBody (request, _reply, done) {
      if (xml !== undefined) readXml(request, xml)
      change?.(request)
      // The body's failure, else the schema's, else on to the handler.
      done(request.bodyError ?? request.validationError ?? undefined)
    }
  })

  fastify.decorate('acceptBodies', function (this: FastifyInstance, policy: BodyPolicy, extra: { xml?: (text: string) => unknown } = {}) {
    ;(this as Policed)[POLICY] = { policy, xml: extra.xml }
    if (policy !== 'none') {
      this.decorateRequest('bodyError', null)
      this.decorateRequest('xmlText', null)
    }
    this.removeAllContentTypeParsers()
    if (policy === 'none') {
      this.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_request, _body, done) => { done(null, undefined) })
      return
    }
    if (policy === 'ignore') {
      // Handed the request's stream, the parser leaves it unread.
      this.addContentTypeParser('*', (_request, _payload, done) => { done(null, undefined) })
      return
    }

    // Fastify's own JSON parser: it refuses __proto__ and constructor.prototype keys.
    const parseJson = this.getDefaultJsonParser('error', 'error')
    if (policy === 'optional-json') {
      const lenient = (request: FastifyRequest, text: string, done: Done): void => {
        parseJson(request, text, (error, body) => { done(null, error === null ? body : undefined) })
      }
      this.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (request, text, done) => { lenient(request, text as string, done) })
      this.addContentTypeParser('*', { parseAs: 'string', bodyLimit }, (request, text, done) => {
        if (request.headers['content-type'] === undefined) lenient(request, text as string, done)
        else done(null, undefined)
      })
      return
    }
    const json = (request: FastifyRequest, text: string, done: Done): void => {
      parseJson(request, text, (error, body) => {
        if (error !== null) request.bodyError = error as FastifyError
        done(null, error === null ? body : undefined)
      })
    }
    this.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (request, text, done) => { json(request, text as string, done) })
    // An XML body is kept as text, within the body limit as JSON is, and read by the body's verdict:
    // after the token's, before what looks at the body.
    if (extra.xml !== undefined) {
      this.addContentTypeParser(['application/xml', 'text/xml'], { parseAs: 'string', bodyLimit }, (request, text, done) => {
        request.xmlText = text as string
        done(null, undefined)
      })
    }
    // No Content-Type is JSON (unless one was set aside); any other type is 415.
    this.addContentTypeParser('*', { parseAs: 'string', bodyLimit }, (request, text, done) => {
      if (request.headers['content-type'] === undefined && request.bodyError === null) {
        json(request, text as string, done)
        return
      }
      request.bodyError ??= new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE()
      done(null, undefined)
    })
  })

  fastify.acceptBodies('none')
}

export default fp(bodies, { name: 'bodies', fastify: '5.x' })
