// @fastify/helmet's options for what a browser shows (the pages, /docs), not the API's answers.
import type { FastifyHelmetOptions } from '@fastify/helmet'

/** The CSP `directives`, framing refused, helmet's defaults. No HSTS: HTTPS is the operator's choice at the
 * proxy, and includeSubDomains would bind the domain's other sites. nosniff is on every answer already. */
export function browserHeaders (directives: Readonly<Record<string, string[]>>): FastifyHelmetOptions {
  return {
    global: true,
    contentSecurityPolicy: { useDefaults: false, directives },
    frameguard: { action: 'deny' },
    strictTransportSecurity: false,
    xContentTypeOptions: false
  }
}
