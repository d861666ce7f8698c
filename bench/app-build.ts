// CPU time to build the service as a plugin, as each test does: APPS apps (default 20), each
// `Fastify().register(app)` then `ready()`, one after another in one process. What
// src/serializers.ts saves (docs/benchmarks.md, "Optimisations kept") is this figure against the
// same with `fastify.setSerializerCompiler(serializerOf)` taken out of src/app.ts.
// `npm run build && node dist/bench/app-build.js`
import Fastify from 'fastify'
import app from '../src/app.js'

const apps = Number(process.env.APPS ?? 20)
const ms: number[] = []
for (let i = 0; i < apps; i++) {
  const start = process.cpuUsage()
  const fastify = Fastify()
  await fastify.register(app)
  await fastify.ready()
  const { user, system } = process.cpuUsage(start)
  ms.push((user + system) / 1000)
  await fastify.close()
}
const rest = ms.slice(1).sort((a, b) => a - b)
const median = rest[Math.floor(rest.length / 2)] ?? NaN
const total = ms.reduce((sum, each) => sum + each, 0)
console.log(`CPU ms: first app ${(ms[0] ?? NaN).toFixed(0)}, the next ${rest.length} median ${median.toFixed(0)}, all ${apps} ${total.toFixed(0)}`)
