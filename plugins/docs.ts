// API documentation: @fastify/swagger's OpenAPI 3 document of the routes registered after it, served by
// @fastify/swagger-ui at /docs. The API is documented once; its two bases are the document's two servers.
// The document and Swagger UI's files are each one Buffer, sent to every client: a copy (or a file stream)
// per connection let clients that do not read fill the heap.
import helmet from '@fastify/helmet'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance, FastifyReply, preHandlerHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { readFileSync, ReadStream } from 'node:fs'
import { browserHeaders } from '../src/domain/http/browser-headers.js'
import { documented } from '../src/domain/http/schemas.js'
import { API_BASE } from './api-bases.js'

/** `x-optional-body` in a route's schema: a body documented, not validated, and optional (POST /challenger). */
interface OptionalBody {
  'x-optional-body'?: unknown
}

interface Operation {
  'x-optional-body'?: boolean
  requestBody: { required?: boolean }
}

export interface DocsOptions {
  version: string
}

/** The hash of the one inline style Swagger UI renders (its logo's), instead of 'unsafe-inline'; a test checks it. */
export const SWAGGER_LOGO_STYLE_HASH = "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='"

/** Swagger UI's CSP; not `staticCSP: true`'s, whose `upgrade-insecure-requests` breaks the page served over
 * plain HTTP to another machine. */
export const DOCS_CSP_DIRECTIVES: Readonly<Record<string, string[]>> = {
  'default-src': ["'none'"],
  'script-src': ["'self'"],
  'style-src': ["'self'", SWAGGER_LOGO_STYLE_HASH],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'form-action': ["'self'"],
  'base-uri': ["'none'"],
  'object-src': ["'none'"],
  'frame-ancestors': ["'none'"]
}

/** Swagger UI's files by path, read on each one's first whole answer, for the process: they never change. */
const assets = new Map<string, Buffer>()

/** The whole of a Swagger UI file, @fastify/static's stream of it (a 200), as the one Buffer of that file; its
 * headers, ETag and Last-Modified among them, stay @fastify/static's. Anything else (a part, a 304) as it is. */
function sharedAsset (reply: FastifyReply, payload: unknown): unknown {
  if (!(payload instanceof ReadStream) || reply.statusCode !== 200) return payload
  const path = String(payload.path)
  let asset = assets.get(path)
  if (asset === undefined) {
    asset = readFileSync(path)
    assets.set(path, asset)
  }
  payload.destroy()
  return asset
}

/**
 * Swagger UI's requests for a token say they come from a page, as the reference's widgets do: a refused
 * login then has no WWW-Authenticate, and the browser shows no login dialog over "Try it out". Runs in
 * the browser (@fastify/swagger-ui writes it into swagger-initializer.js as it is).
 */
export function asLiveWidget (request: Record<string, any>): Record<string, any> {
  if (/\/secret\/token(?:[?#]|$)/.test(request.url)) request.headers['X-API-Challenges-Live-Widget'] = 'true'
  return request
}

async function docs (fastify: FastifyInstance, options: DocsOptions): Promise<void> {
  const prefix = fastify.prefix
  await fastify.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      // No host: "Try it out" reaches this server by whatever name the browser used.
      servers: [
        { url: prefix === '' ? '/' : prefix, description: 'The paths at the service\'s root, as the reference\'s v1 has them' },
        { url: `${prefix}${API_BASE}`, description: 'The paths as the reference\'s 2026 tutorials send them, under /api' }
      ],
      info: {
        title: 'API Challenges: secret note and heartbeat',
        version: options.version,
        description: 'A practice target for API testing. Create a session with POST /challenger, get a token with ' +
          'POST /secret/token (Basic admin:password), then read and write your secret note. Every request carries ' +
          'your session id in X-CHALLENGER; GET /challenges shows which challenges you have passed. Every path but /grades answers ' +
          'at both servers, the same: as written here, and under /api as the reference\'s 2026 tutorials send it.'
      },
      tags: [
        { name: 'sessions', description: 'Create a session (its id goes in X-CHALLENGER on every request), save it and restore it' },
        { name: 'challenges', description: 'Which challenges there are, and which ones you have passed' },
        { name: 'heartbeat', description: 'A fixed status for each method: challenges 25-28 and 40-42' },
        { name: 'secret', description: 'A token for Basic credentials, and the secret note it guards: challenges 29-38' },
        { name: 'grades', description: 'Grade a test suite through the server: a base URL per deliberate defect, your exit codes, the score' }
      ],
      components: {
        securitySchemes: {
          challenger: { type: 'apiKey', in: 'header', name: 'X-CHALLENGER', description: 'Your session id, from POST /challenger' },
          authToken: { type: 'apiKey', in: 'header', name: 'X-AUTH-TOKEN', description: 'Your token, from POST /secret/token' },
          bearer: { type: 'http', scheme: 'bearer', description: 'The same token as Authorization: Bearer <token>' },
          basic: { type: 'http', scheme: 'basic', description: 'admin:password unless the server was set up otherwise' }
        }
      }
    },
    exposeHeadRoutes: false,
    // A negotiated answer has one schema at run time (JSON) and three media types in the document.
    transform: ({ schema, url }) => {
      if (schema === undefined) return { schema, url }
      const response = (schema as { response?: Record<string, Record<string, unknown>> }).response
      const body = (schema as OptionalBody)['x-optional-body']
      return {
        schema: {
          ...schema,
          ...(response === undefined ? {} : { response: documented(response) }),
          ...(body === undefined ? {} : { body, 'x-optional-body': true })
        } as typeof schema,
        url
      }
    },
    transformObject: (document) => {
      const { openapiObject } = document as Extract<typeof document, { openapiObject: unknown }>
      for (const operations of Object.values(openapiObject.paths as Record<string, Record<string, Operation>>)) {
        for (const operation of Object.values(operations)) {
          if (operation['x-optional-body'] !== true) continue
          delete operation['x-optional-body']
          operation.requestBody.required = false
        }
      }
      return openapiObject
    }
  })
  // The document, made once its routes are all known: JSON and YAML, each one Buffer (issue 50).
  let json: Buffer | undefined
  let yaml: Buffer | undefined
  const sendDocument: preHandlerHookHandler = function (request, reply, done) {
    const url = request.routeOptions.url as string
    if (url.endsWith('/docs/json')) {
      json ??= Buffer.from(JSON.stringify(fastify.swagger()))
      reply.type('application/json; charset=utf-8').send(json)
    } else if (url.endsWith('/docs/yaml')) {
      yaml ??= Buffer.from(fastify.swagger({ yaml: true }))
      reply.type('application/x-yaml').send(yaml)
    } else done()
  }
  // Encapsulated, so that helmet's headers reach the docs and not the API.
  await fastify.register(async function swaggerUiPage (ui) {
    await ui.register(helmet, browserHeaders(DOCS_CSP_DIRECTIVES))
    ui.addHook('preHandler', sendDocument)
    ui.addHook('onSend', function shareAssets (_request, reply, payload, next) {
      next(null, sharedAsset(reply, payload))
    })
    await ui.register(swaggerUi, { routePrefix: '/docs', indexPrefix: ui.prefix, uiConfig: { persistAuthorization: true, requestInterceptor: asLiveWidget } })
  })
}

export default fp(docs, { name: 'docs', fastify: '5.x' })
