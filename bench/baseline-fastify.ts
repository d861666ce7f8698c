// The baseline the service is measured against: bare Fastify, the same version and logger setting
// as `npm start` (level info, no per-request lines), a 204 route and a route that validates
// { note: string } with the same kind of schema (TypeBox, TypeBox's compiler) and returns it.
// For reference, /headers/204 answers 204 with the headers every answer of the service must carry
// (CORS through @fastify/cors, Access-Control-Allow-Headers, the X-Challenger echo) and nothing else.
import cors from '@fastify/cors'
import { Type, TypeBoxValidatorCompiler, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { LogController } from 'fastify'

const fastify = Fastify({
  logger: { level: 'info' },
  logController: new LogController({ disableRequestLogging: true })
}).withTypeProvider<TypeBoxTypeProvider>()
fastify.setValidatorCompiler(TypeBoxValidatorCompiler)

fastify.get('/204', async (_request, reply) => reply.code(204).send())

fastify.post('/note', {
  bodyLimit: 16 * 1024,
  schema: {
    body: Type.Object({ note: Type.String() }),
    response: { 200: Type.Object({ note: Type.String() }) }
  }
}, async (request) => ({ note: request.body.note }))

await fastify.register(async (withHeaders) => {
  await withHeaders.register(cors, { origin: '*', exposedHeaders: '*', preflight: false })
  withHeaders.addHook('onRequest', (request, reply, done) => {
    reply.header('access-control-allow-headers', '*')
    const challenger = request.headers['x-challenger']
    if (challenger !== undefined) reply.header('x-challenger', challenger)
    done()
  })
  withHeaders.get('/headers/204', async (_request, reply) => reply.code(204).send())
})

const address = await fastify.listen({ port: 0, host: '127.0.0.1' })
process.stdout.write(`bench-ready ${address}\n`)
process.on('SIGTERM', () => { fastify.close().then(() => process.exit(0), () => process.exit(1)) })
