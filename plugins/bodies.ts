// Request bodies, one policy for the service: a route plugin calls `fastify.acceptBodies('json')`
// to parse JSON and refuse every other content type with 415, or `fastify.acceptBodies('none')`
// to read and drop whatever a client sends (many clients add a Content-Type to every POST), so a
// body never fails a route that takes none. Both keep the service's body limit (413 beyond it).
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

export type BodyPolicy = 'json' | 'none'

declare module 'fastify' {
  interface FastifyInstance {
    /** Sets the body policy of the calling (encapsulated) plugin and its children. */
    acceptBodies (policy: BodyPolicy): void
  }
}

export interface BodiesOptions {
  bodyLimit: number
}

async function bodies (fastify: FastifyInstance, options: BodiesOptions): Promise<void> {
  const { bodyLimit } = options
  fastify.decorate('acceptBodies', function (this: FastifyInstance, policy: BodyPolicy) {
    this.removeAllContentTypeParsers()
    if (policy === 'json') {
      // Fastify's own parser: it refuses __proto__ and constructor.prototype keys.
      this.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, this.getDefaultJsonParser('error', 'error'))
    } else {
      this.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_request, _body, done) => { done(null, undefined) })
    }
  })
}

export default fp(bodies, { name: 'bodies', fastify: '5.x' })
