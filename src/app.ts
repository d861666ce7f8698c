// The whole service as one Fastify plugin. It is deliberately not wrapped in fastify-plugin:
// a host can mount it under a prefix, and its decorators, hooks and error format stay inside.
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import acceptable from '../plugins/acceptable.js'
import admin from '../plugins/admin.js'
import apiBases, { API_BASE } from '../plugins/api-bases.js'
import auth from '../plugins/auth.js'
import bodies from '../plugins/bodies.js'
import challengerRegistry from '../plugins/challenger-registry.js'
import clientAddress from '../plugins/client-address.js'
import cors from '../plugins/cors.js'
import defects from '../plugins/defects.js'
import docs from '../plugins/docs.js'
import errors from '../plugins/errors.js'
import formats from '../plugins/formats.js'
import gradesPlugin from '../plugins/grades.js'
import headers from '../plugins/headers.js'
import journal from '../plugins/journal.js'
import methodGuard from '../plugins/method-guard.js'
import metrics from '../plugins/metrics.js'
import openapi from '../plugins/openapi.js'
import pipeline from '../plugins/pipeline.js'
import session from '../plugins/session.js'
import shutdown from '../plugins/shutdown.js'
import adminRoutes from '../routes/admin.js'
import challenger from '../routes/challenger.js'
import challenges from '../routes/challenges.js'
import grades from '../routes/grades.js'
import health from '../routes/health.js'
import heartbeat from '../routes/heartbeat.js'
import metricsRoute from '../routes/metrics.js'
import pages from '../routes/pages.js'
import secret from '../routes/secret.js'
import { GRADE_BASE } from './domain/http/api-base.js'
import { UnreachableChallengeError } from './domain/http/errors.js'
import { resolveOptions, VERSION, type ApiChallengesOptions } from './domain/config/options.js'
import { serializerOf } from './serializers.js'

export type { ApiChallengesOptions } from './domain/config/options.js'
export { SINGLE_PLAYER_GUID } from './domain/config/options.js'
export { MemoryStore, type MemoryStoreOptions } from './domain/sessions/memory-store.js'
export type { ClassBoard, Session, SessionChange, SessionStore } from './domain/sessions/store.js'
// For a host that wants errors raised before routing to carry the service's error body too.
export { clientErrorHandler, frameworkErrors } from './server-options.js'
// For a host whose server should take every method Node accepts (PROPFIND, QUERY, …), as npm start's does.
export { supportEveryMethod } from './server-options.js'
export { EVERY_METHOD } from './domain/http/methods.js'

const app: FastifyPluginAsync<ApiChallengesOptions> = async (fastify, opts) => {
  const options = resolveOptions(opts)

  // TypeBox's own compiler validates without Ajv's type coercion: 42, null or ["a"] is not a note.
  fastify.setValidatorCompiler(TypeBoxValidatorCompiler)
  fastify.setSerializerCompiler(serializerOf)

  // The capabilities, each a plugin that offers its steps (none adds a hook to every request):
  // negotiation and the error body first, which every early refusal uses.
  await fastify.register(formats)
  await fastify.register(errors, options)
  await fastify.register(acceptable)
  await fastify.register(shutdown, options)
  await fastify.register(headers, options)
  await fastify.register(clientAddress)
  await fastify.register(challengerRegistry, options)
  await fastify.register(session, options)
  await fastify.register(defects, options)
  await fastify.register(methodGuard)
  await fastify.register(bodies, options)
  await fastify.register(auth, options)
  await fastify.register(journal, options)
  await fastify.register(admin, options)
  // Metrics are for the instructor: collected only when there is an admin token to read them with.
  if (fastify.adminEnabled) await fastify.register(metrics)
  // What happens to a request, in order: each route registered after this gets the steps it needs.
  await fastify.register(pipeline, options)
  // The one global hook: every answer carries the CORS headers (its catch-all OPTIONS route, a 404, gets the 404's steps).
  await fastify.register(cors)
  await fastify.register(openapi, options)
  if (options.docs) await fastify.register(docs, { version: VERSION })
  await fastify.register(apiBases, options)

  // The API, at the service's root (the reference's v1 paths and its legacy ones) and
  // again under /api (the reference's 2026 tutorials): one set of sessions, challenges and limits,
  // the same answers. The document shows the root's (plugins/docs.ts names both bases).
  const api = (graded: boolean) => async (base: FastifyInstance): Promise<void> => {
    await base.register(heartbeat)
    await base.register(challenger, { ...options, graded })
    await base.register(challenges)
    await base.register(secret, options)
  }
  // Grading runs (routes/grades.ts), where the store keeps them and there are sessions to make: the API
  // once more under a prefix with the run's and the base's ids as parameters, so that any number of
  // runs share one set of routes, and a session made there carries its base's defect (plugins/grades.ts).
  const grading = fastify.sessions.grades !== undefined && options.mode === 'multi'
  if (grading) await fastify.register(gradesPlugin)
  // Every base of the API, and the 404, in one context: their routes look up the session, meet its
  // defects and keep the journal, and only their requests carry those steps' fields (plugins/pipeline.ts).
  await fastify.register(async function theApi (scope) {
    scope.servesApi()
    await scope.register(api(false))
    await scope.register(async function apiBase (base) {
      base.addHook('onRoute', route => { route.schema = { ...route.schema, hide: true } })
      await api(false)(base)
    }, { prefix: API_BASE })
    if (grading) {
      await scope.register(async function gradeBase (base) {
        base.addHook('onRoute', route => { route.schema = { ...route.schema, hide: true } })
        await api(true)(base)
      }, { prefix: GRADE_BASE })
    }
  })
  if (grading) await fastify.register(grades)
  // Pages, the docs, the class board, the metrics and the operators' probes (/livez, /readyz) are at the root only.
  await fastify.register(health)
  await fastify.register(pages, options)
  // The class board and /metrics exist only with an admin token (else 404, like any unknown path).
  if (fastify.adminEnabled) {
    await fastify.register(adminRoutes)
    await fastify.register(metricsRoute)
  }

  // Every challenge must be passable: some route registered above asked for its trigger's bit.
  const unreachable = fastify.unreachableChallenges()
  if (unreachable.length > 0) {
    throw new UnreachableChallengeError(unreachable.map(c => `"${c.trigger}" (challenge ${c.id})`).join(', '))
  }
}

export default app
