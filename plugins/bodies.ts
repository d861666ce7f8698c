// Request bodies, one policy for the service: a route plugin calls `fastify.acceptBodies('json')`
// to parse JSON and refuse every other content type with 415, or `fastify.acceptBodies('none')`
// to read and drop whatever a client sends (many clients add a Content-Type to every POST), so a
// body never fails a route that takes none. Both keep the service's body limit (413 beyond it).
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

export type BodyPolicy = 'json' | 'none'

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Sets the body policy of the calling (encapsulated) plugin and its children. With 'json',
     * `xml` reads application/xml and text/xml bodies into the same shape as the JSON body; it
     * throws to refuse one (400).
     */
    acceptBodies (policy: BodyPolicy, options?: { xml?: (text: string) => unknown }): void
  }
}

export interface BodiesOptions {
  bodyLimit: number
}

async function bodies (fastify: FastifyInstance, options: BodiesOptions): Promise<void> {
  const { bodyLimit } = options
  fastify.decorate('acceptBodies', function (this: FastifyInstance, policy: BodyPolicy, extra: { xml?: (text: string) => unknown } = {}) {
    this.removeAllContentTypeParsers()
    if (policy === 'json') {
      // Fastify's own parser: it refuses __proto__ and constructor.prototype keys.
      this.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, this.getDefaultJsonParser('error', 'error'))
      const xml = extra.xml
      if (xml !== undefined) {
        this.addContentTypeParser(['application/xml', 'text/xml'], { parseAs: 'string', bodyLimit }, (_request, text, done) => {
          try {
            done(null, xml(text as string))
          } catch (error) {
            done(Object.assign(error as Error, { statusCode: 400 }), undefined)
          }
        })
      }
    } else {
      this.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_request, _body, done) => { done(null, undefined) })
    }
  })
}

export default fp(bodies, { name: 'bodies', fastify: '5.x' })
