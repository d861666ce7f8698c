// The OpenAPI document's groups: each route plugin files its operations under one tag, and each
// operation gets the optional X-CHALLENGER requirement unless it names its own. The tags are on
// the route schemas whether or not the docs plugin is there to read them.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { security, type Requirement, type Tag } from '../src/domain/schemas.js'

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Files every operation that the calling route plugin (and its children) registers under
     * `tag`, with the optional X-CHALLENGER requirement unless the route names its own.
     */
    documentAs (tag: Tag): void
  }
}

async function openapi (fastify: FastifyInstance): Promise<void> {
  fastify.decorate('documentAs', function (this: FastifyInstance, tag: Tag) {
    this.addHook('onRoute', route => {
      const schema = route.schema ?? {}
      route.schema = { ...schema, tags: [tag], security: (schema as { security?: Requirement[] }).security ?? security.optional }
    })
  })
}

export default fp(openapi, { name: 'openapi', fastify: '5.x' })
