// The client's address as the trusted proxies name it (request.ip, by Fastify's trustProxy): a step
// of the arrival (plugins/pipeline.ts), attached only when the server trusts a proxy. An
// X-Forwarded-For entry written with a port counts as its address; one that names no address is
// refused with 400 before anything else looks at the client, so that it never becomes a client of
// its own (a key of the creation limit or of the admin guesses).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { isIP } from 'node:net'
import { withoutPorts } from '../src/domain/http/forwarded.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The client address's step: true once it has answered (400). */
    checkClientAddress (request: FastifyRequest, reply: FastifyReply): boolean
  }
}

/** How much of a stranger's entry a refusal repeats. */
const SHOWN = 60

async function clientAddress (fastify: FastifyInstance): Promise<void> {
  fastify.decorate('checkClientAddress', function checkClientAddress (request: FastifyRequest, reply: FastifyReply): boolean {
    const header = request.headers['x-forwarded-for']
    // No header, or an address as the client: the socket's (no trusted hop) or one a proxy named.
    if (header === undefined || isIP(request.ip) !== 0) return false
    // request.ip reads the header on each call: its entries with ports are written as bare addresses
    // (Node joins a repeated X-Forwarded-For into one string).
    request.raw.headers['x-forwarded-for'] = withoutPorts(String(header))
    const named = String(request.ip)
    if (isIP(named) !== 0) return false
    const shown = named.length > SHOWN ? `${named.slice(0, SHOWN)}…` : named
    reply.fail(400, `X-Forwarded-For names the client as ${JSON.stringify(shown)}, which is not an IP address: a proxy in front must pass on the client's address`)
    return true
  })
}

export default fp(clientAddress, { name: 'client-address', fastify: '5.x', dependencies: ['errors'] })
