// API documentation: @fastify/swagger builds an OpenAPI 3 document from the route schemas that are
// registered after it, and @fastify/swagger-ui serves it at /docs (the document at /docs/json and
// /docs/yaml), under the app's prefix. Register it before the routes. The API is documented once,
// its paths without the prefix, and the document's two servers are its two bases: the prefix itself
// and the prefix's /api (the /api copies of the routes are hidden). It shows the operations a
// learner uses: no HEAD, and OPTIONS only for the heartbeat (plugins/method-guard.ts hides the
// others). Swagger UI runs in a plugin of its own with @fastify/helmet: a Content-Security-Policy
// that lets it work and nothing more, and no framing.
import helmet from '@fastify/helmet'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { browserHeaders } from '../src/domain/http/browser-headers.js'
import { documented } from '../src/domain/http/schemas.js'
import { API_BASE } from './api-bases.js'

/**
 * A route's schema may give `x-optional-body`: a body that is documented but not validated, and may
 * be left out (POST /challenger takes any body).
 */
interface OptionalBody {
  'x-optional-body'?: unknown
}

/** An operation of the document, as transformObject sees it (the marker is only on operations with a body). */
interface Operation {
  'x-optional-body'?: boolean
  requestBody: { required?: boolean }
}

export interface DocsOptions {
  version: string
}

/**
 * The one inline style Swagger UI renders: the <style> of the Swagger logo in its top bar (in
 * swagger-ui-standalone-preset.js), allowed by its hash rather than by 'unsafe-inline'. A test
 * checks it against the installed bundle.
 */
export const SWAGGER_LOGO_STYLE_HASH = "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='"

/**
 * Swagger UI's Content-Security-Policy: its own scripts and stylesheets, the logo's style, its
 * images (the logo is a data: URL), "Try it out" on this server only, and no framing. Unlike the
 * policy of @fastify/swagger-ui's `staticCSP: true`, it has no `upgrade-insecure-requests` (which
 * breaks the page served over plain HTTP from another machine) and no `https:` sources.
 */
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

async function docs (fastify: FastifyInstance, options: DocsOptions): Promise<void> {
  const prefix = fastify.prefix
  await fastify.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      // Paths without a host, which Swagger UI resolves against the document's address: "Try it out"
      // reaches this server by whatever name the browser used. @fastify/swagger takes the first one
      // (the prefix) off the document's paths (its stripBasePath).
      servers: [
        { url: prefix === '' ? '/' : prefix, description: 'The paths at the service\'s root, as the reference\'s v1 has them' },
        { url: `${prefix}${API_BASE}`, description: 'The paths as the reference\'s 2026 tutorials send them, under /api' }
      ],
      info: {
        title: 'API Challenges: secret note and heartbeat',
        version: options.version,
        description: 'A practice target for API testing. Create a session with POST /challenger, get a token with ' +
          'POST /secret/token (Basic admin:password), then read and write your secret note. Every request carries ' +
          'your session id in X-CHALLENGER; GET /challenges shows which challenges you have passed. Every path answers ' +
          'at both servers, the same: as written here, and under /api as the reference\'s 2026 tutorials send it.'
      },
      // In the order a learner meets them.
      tags: [
        { name: 'sessions', description: 'Create a session (its id goes in X-CHALLENGER on every request), save it and restore it' },
        { name: 'challenges', description: 'Which challenges there are, and which ones you have passed' },
        { name: 'heartbeat', description: 'A fixed status for each method: challenges 25-28 and 40-42' },
        { name: 'secret', description: 'A token for Basic credentials, and the secret note it guards: challenges 29-38' }
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
    // HEAD answers exist for every GET, and teach nothing GET does not: the document leaves them out.
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
    // @fastify/swagger marks every body required; a route whose schema says `x-optional-body` takes none too.
    transformObject: (document) => {
      // This plugin asks for OpenAPI 3 (above), never Swagger 2.
      const { openapiObject } = document as Extract<typeof document, { openapiObject: unknown }>
      // Every document has paths: this service's routes.
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
  // Encapsulated, so that helmet's headers reach the docs and not the API. The page at /docs (no
  // trailing slash) names its assets by absolute path: under a host's prefix, indexPrefix puts
  // the prefix in front of them.
  await fastify.register(async function swaggerUiPage (ui) {
    await ui.register(helmet, browserHeaders(DOCS_CSP_DIRECTIVES))
    // The Authorize values (the session, the token) are kept in the browser across a reload.
    await ui.register(swaggerUi, { routePrefix: '/docs', indexPrefix: ui.prefix, uiConfig: { persistAuthorization: true } })
  })
}

export default fp(docs, { name: 'docs', fastify: '5.x' })
