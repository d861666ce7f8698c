// CORS: any page may call the service and read its custom headers. The routes answer their own OPTIONS,
// which also serves as the preflight.
import fastifyCors from '@fastify/cors'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

async function cors (fastify: FastifyInstance): Promise<void> {
  await fastify.register(fastifyCors, {
    origin: '*',
    exposedHeaders: '*',
    // With preflight on, @fastify/cors answers every OPTIONS itself.
    preflight: false
  })
}

export default fp(cors, { name: 'cors', fastify: '5.x' })
