// The class board's API (issue 17): being written.
import type { FastifyPluginAsync } from 'fastify'

const adminRoutes: FastifyPluginAsync = async () => {}

export default adminRoutes
