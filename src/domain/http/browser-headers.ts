// @fastify/helmet's options for what a browser shows (the pages, /docs), not the API's answers.
import type { FastifyHelmetOptions } from '@fastify/helmet'

/**
 * The CSP `directives`, framing refused, helmet's other defaults. No HSTS: HTTPS is the operator's choice at
 * the proxy, and helmet's includeSubDomains would bind the domain's other sites. nosniff: plugins/headers.ts.
 */
export function browserHeaders (directives: Readonly<Record<string, string[]>>): FastifyHelmetOptions {
  return {
    global: true,
    contentSecurityPolicy: { useDefaults: false, directives },
    frameguard: { action: 'deny' },
    strictTransportSecurity: false,
    xContentTypeOptions: false
  }
}
