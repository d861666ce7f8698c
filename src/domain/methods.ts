// HTTP methods beyond Fastify's own list. Fastify keeps one list of methods per server and answers
// a method it does not know with its 404 before any plugin sees it; the process (src/server.ts)
// teaches its server every method Node's parser accepts, so that PROPFIND or QUERY reach the
// service and get a 405. A host that embeds the service decides for its own server (README).
import type { FastifyInstance } from 'fastify'
import { METHODS } from 'node:http'

/** Every method Node's HTTP parser accepts but CONNECT, which Node handles itself. */
export const EVERY_METHOD: readonly string[] = Object.freeze(METHODS.filter(method => method !== 'CONNECT'))

/**
 * Adds to `fastify`'s server every method of EVERY_METHOD that it does not know yet, as bodyless:
 * Fastify then parses no body for them on any route, so none can fail on a body before a route
 * refuses it. Call it before the server is ready (Fastify refuses new methods after).
 */
export function supportEveryMethod (fastify: FastifyInstance): void {
  for (const method of EVERY_METHOD) {
    if (!fastify.supportedMethods.includes(method)) fastify.addHttpMethod(method)
  }
}
