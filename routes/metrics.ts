// GET /metrics (issue 17): being written.
import type { FastifyPluginAsync } from 'fastify'

const metricsRoute: FastifyPluginAsync = async () => {}

export default metricsRoute
