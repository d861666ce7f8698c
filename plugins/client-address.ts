// The client's address as the trusted proxies name it (request.ip, by Fastify's trustProxy). An
// X-Forwarded-For entry written with a port counts as its address; one that names no address is
// refused with 400 before anything else looks at the client, so that it never becomes a client of
// its own (a key of the creation limit or of the admin guesses). Without trustProxy, nothing to do.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { isIP } from 'node:net'
import { withoutPorts } from '../src/domain/http/forwarded.js'

/** How much of a stranger's entry a refusal repeats. */
const SHOWN = 60

async function clientAddress (fastify: FastifyInstance): Promise<void> {
  fastify.addHook('onRequest', function checkClientAddress (request, reply, done) {
    const header = request.headers['x-forwarded-for']
    // No header, or an address as the client: the socket's (no trustProxy, no trusted hop) or one a proxy named.
    if (header === undefined || isIP(request.ip) !== 0) {
      done()
      return
    }
    // request.ip reads the header on each call: its entries with ports are written as bare addresses
    // (Node joins a repeated X-Forwarded-For into one string).
    request.raw.headers['x-forwarded-for'] = withoutPorts(String(header))
    const named = String(request.ip)
    if (isIP(named) !== 0) {
      done()
      return
    }
    const shown = named.length > SHOWN ? `${named.slice(0, SHOWN)}…` : named
    reply.fail(400, `X-Forwarded-For names the client as ${JSON.stringify(shown)}, which is not an IP address: a proxy in front must pass on the client's address`)
  })
}

export default fp(clientAddress, { name: 'client-address', fastify: '5.x', dependencies: ['errors'] })
