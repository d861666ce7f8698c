// GET /metrics: the app's Prometheus metrics (plugins/metrics.ts) in the text format, for the
// instructor's Prometheus (registered only with an admin token, behind `fastify.adminOnly`). Not
// in the learners' OpenAPI document; admin requests are in no learner's journal.
import type { FastifyPluginAsync } from 'fastify'

const metricsRoute: FastifyPluginAsync = async (fastify) => {
  fastify.adminRoutes()

  const config = { admin: true }
  fastify.get('/metrics', { config }, async (_request, reply) => {
    const text = await fastify.metrics.metrics()
    return reply.type(fastify.metrics.contentType).send(text)
  })
  fastify.allowOnly('/metrics', ['GET', 'HEAD', 'OPTIONS'], config)
}

export default metricsRoute
