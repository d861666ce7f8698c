// @fastify/helmet's options for what a browser shows (the pages, /docs), registered in their own
// plugins so that the API's answers stay lean.
import type { FastifyHelmetOptions } from '@fastify/helmet'

/**
 * The page's Content-Security-Policy (`directives`, nothing added), framing refused
 * (X-Frame-Options: DENY beside CSP's frame-ancestors), and helmet's other defaults. Not HSTS:
 * whether the service is reached over HTTPS is the operator's choice, made at the proxy in front of
 * it, and helmet's HSTS (a year, includeSubDomains) would bind every other site under the same
 * domain too. nosniff is set on every answer by plugins/headers.ts.
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
