// Methods beyond Fastify's list: the server is taught them (supportEveryMethod) and the method guard answers 405.
import { METHODS } from 'node:http'

/** Every method Node's HTTP parser accepts but CONNECT, which Node handles itself. */
export const EVERY_METHOD: readonly string[] = Object.freeze(METHODS.filter(method => method !== 'CONNECT'))
