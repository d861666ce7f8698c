// Request bodies, one policy for the service. By default, for the whole app, a body is read and
// dropped, whatever its type (many clients add a Content-Type to every POST), so a body never fails
// a route that takes none; a route plugin that takes one calls `fastify.acceptBodies('json')`.
// Both keep the service's body limit (413 beyond it, before anything else is looked at), whatever
// the host's parsers and limit are. With 'ignore' (the heartbeat's), a body is not read at all:
// the answer never depends on it, and the connection closes after the answer (plugins/shutdown.ts).
//
// With 'json', a body that cannot be used (another content type, malformed or empty JSON, a value
// that fails the route's schema) is judged late: the parsers hand their failure on in
// `request.bodyError` instead of answering, the routes validate with `attachValidation`, and a
// route-level preHandler (`judgeBody`) answers 415 or 400 after the plugin's own preHandlers, the
// token check among them. So a learner without a token gets 401 whatever the body, as in the
// reference. A body without a Content-Type is read as JSON, as the reference does.
import { errorCodes, type FastifyError, type FastifyInstance, type FastifyRequest, type preHandlerHookHandler, type preParsingHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { BadXmlBodyError } from '../src/domain/http/errors.js'

export type BodyPolicy = 'json' | 'optional-json' | 'none' | 'ignore'

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Sets the body policy of the calling (encapsulated) plugin and its children. With 'json',
     * `xml` reads application/xml and text/xml bodies into the same shape as the JSON body; it
     * throws to refuse one (400).
     */
    acceptBodies (policy: BodyPolicy, options?: { xml?: (text: string) => unknown }): void
  }
  interface FastifyRequest {
    /** Why the body cannot be used (415 or 400), kept until the route's preHandlers have run. */
    bodyError: FastifyError | null
  }
}

export interface BodiesOptions {
  bodyLimit: number
}

type Done = (error: Error | null, body?: unknown) => void

/** A 400 that keeps the parser's message, for an XML body that is refused (APICH_BAD_XML_BODY). */
function badRequest (error: Error): FastifyError {
  return new BadXmlBodyError(error.message, { cause: error })
}

/**
 * A Content-Type that is no media type at all ("text") would be refused by Fastify before any hook
 * could look at the token. It is set aside here, and the body is refused as one of an unsupported
 * type once the token has been checked: the 415 carries the header as sent, in `contentType`, for
 * its message (plugins/errors.ts).
 */
const setAside: preParsingHookHandler = function setAside (request, _reply, payload, done) {
  const type = request.headers['content-type']
  // Fastify's own reading of the header: no media type when it is not valid.
  if (type !== undefined && request.mediaType === undefined) {
    delete request.headers['content-type']
    request.bodyError = Object.assign(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(), { contentType: type })
  }
  done(null, payload)
}

/** After the route's other preHandlers: the body's failure, else the schema's, else on to the handler. */
const judgeBody: preHandlerHookHandler = function judgeBody (request, _reply, done) {
  done(request.bodyError ?? request.validationError ?? undefined)
}

async function bodies (fastify: FastifyInstance, options: BodiesOptions): Promise<void> {
  const { bodyLimit } = options
  fastify.decorateRequest('bodyError', null)

  fastify.decorate('acceptBodies', function (this: FastifyInstance, policy: BodyPolicy, extra: { xml?: (text: string) => unknown } = {}) {
    this.removeAllContentTypeParsers()
    // Only the app's own default asks for 'none' (below); routes that take a body ask for 'json'.
    if (policy === 'none') {
      this.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_request, _body, done) => { done(null, undefined) })
      return
    }
    if (policy === 'ignore') {
      // Handed the request's stream, the parser leaves it unread. A Content-Type that is no media
      // type at all, which Fastify would refuse (415), is set aside too.
      this.addContentTypeParser('*', (_request, _payload, done) => { done(null, undefined) })
      this.addHook('onRoute', route => {
        // GET and HEAD never have their body parsed: they need no hook.
        if ([route.method].flat().some(method => method !== 'GET' && method !== 'HEAD')) route.preParsing = [route.preParsing ?? []].flat().concat(setAside)
      })
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
    const xml = extra.xml
    if (xml !== undefined) {
      this.addContentTypeParser(['application/xml', 'text/xml'], { parseAs: 'string', bodyLimit }, (request, text, done) => {
        try {
          done(null, xml(text as string))
        } catch (error) {
          request.bodyError = badRequest(error as Error)
          done(null, undefined)
        }
      })
    }
    // Everything else, read within the limit: no Content-Type is JSON; any other type is 415.
    this.addContentTypeParser('*', { parseAs: 'string', bodyLimit }, (request, text, done) => {
      // (A Content-Type set aside has left a bodyError: that body is not read as JSON.)
      if (request.headers['content-type'] === undefined && request.bodyError === null) {
        json(request, text as string, done)
        return
      }
      request.bodyError ??= new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE()
      done(null, undefined)
    })

    // Every route of this plugin validates without answering, and is judged after its preHandlers.
    this.addHook('onRoute', route => {
      route.attachValidation = true
      route.preHandler = [route.preHandler ?? []].flat().concat(judgeBody)
      if (route.schema?.body !== undefined) route.preParsing = [route.preParsing ?? []].flat().concat(setAside)
    })
  })

  // The service's default, for every route of the app that does not ask for more.
  fastify.acceptBodies('none')
}

export default fp(bodies, { name: 'bodies', fastify: '5.x' })
