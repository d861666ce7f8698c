// HTTP methods beyond Fastify's own list: the process (src/server.ts) teaches its server every
// one of them (supportEveryMethod, src/server-options.ts), and the method guard answers them 405.
import { METHODS } from 'node:http'

/** Every method Node's HTTP parser accepts but CONNECT, which Node handles itself. */
export const EVERY_METHOD: readonly string[] = Object.freeze(METHODS.filter(method => method !== 'CONNECT'))
