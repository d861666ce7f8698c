// Prometheus metrics (issue 17): being written.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

async function metrics (_fastify: FastifyInstance): Promise<void> {}

export default fp(metrics, { name: 'metrics', fastify: '5.x', dependencies: ['challenger-registry', 'session', 'admin'] })
