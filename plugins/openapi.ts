// The OpenAPI document's groups: each route plugin files its operations under one tag, and each
// operation gets the optional X-CHALLENGER requirement unless it names its own, and (unless the
// solutionLinks option is off) a link to the reference's solution page of each challenge its
// requests can pass. The tags are on the route schemas whether or not the docs plugin is there to
// read them.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { security, type Requirement, type Tag } from '../src/domain/http/schemas.js'
import { challengesOf, solutionList } from '../src/domain/challenges/solutions.js'

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Files every operation that the calling route plugin (and its children) registers under
     * `tag`, with the optional X-CHALLENGER requirement unless the route names its own.
     */
    documentAs (tag: Tag): void
  }
}

export interface OpenApiOptions {
  /** Link each operation to the reference's solution pages of the challenges it passes. */
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
