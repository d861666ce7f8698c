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
    const ip = request.ip
    // The socket's own address (no trustProxy, or no trusted hop), or an address a proxy named.
    if (ip === undefined || isIP(ip) !== 0) {
      done()
      return
    }
    // request.ip reads the header on each call: its entries with ports are written as bare addresses.
    request.raw.headers['x-forwarded-for'] = withoutPorts(request.headers['x-forwarded-for'] as string)
    const named = request.ip
    if (isIP(named) !== 0) {
      done()
      return
    }
    const shown = named.length > SHOWN ? `${named.slice(0, SHOWN)}…` : named
    reply.fail(400, `X-Forwarded-For names the client as ${JSON.stringify(shown)}, which is not an IP address: a proxy in front must pass on the client's address`)
  })
}

export default fp(clientAddress, { name: 'client-address', fastify: '5.x', dependencies: ['errors'] })
