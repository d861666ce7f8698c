// The OpenAPI document's groups: `fastify.documentAs(tag)` files a route plugin's operations under a tag,
// with the optional X-CHALLENGER requirement and links to the reference's solutions.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { security, type Requirement, type Tag } from '../src/domain/http/schemas.js'
import { challengesOf, solutionList } from '../src/domain/challenges/solutions.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Files the calling route plugin's operations under `tag`, with X-CHALLENGER optional unless a route says otherwise. */
    documentAs (tag: Tag): void
  }
}

export interface OpenApiOptions {
  solutionLinks: boolean
}

async function openapi (fastify: FastifyInstance, options: OpenApiOptions): Promise<void> {
  fastify.decorate('documentAs', function (this: FastifyInstance, tag: Tag) {
    this.addHook('onRoute', route => {
      const schema = (route.schema ?? {}) as { security?: Requirement[], description?: string }
      const links = options.solutionLinks ? solutionList(challengesOf([route.method].flat(), route.routePath)) : ''
      const description = links === '' ? {} : { description: schema.description === undefined ? links : `${schema.description}\n\n${links}` }
      route.schema = { ...schema, ...description, tags: [tag], security: schema.security ?? security.optional }
    })
  })
}

export default fp(openapi, { name: 'openapi', fastify: '5.x' })
