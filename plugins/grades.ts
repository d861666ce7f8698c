// Grading runs (routes/grades.ts, docs/bug-hunt.md): the API is registered once more under each run's
// bases (src/app.ts, the prefix /grades/:grade/:base). A request there first meets `gradeBaseStep`
// (plugins/pipeline.ts puts it before the session step): the base is looked up (404 for none), and
// a request whose session carries no defect meets the base's (plugins/defects.ts). A session made
// there carries the base's defect wherever it goes; the creation under a base gets it here, within
// the base's own limit of sessions.
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { GRADE_LIMITS, isBaseId, isRunId, type GradeRuns } from '../src/domain/grades/runs.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The first step of a route under a grading base: the base looked up, or its 404. */
    gradeBaseStep: onRequestHookHandler
    /** The defect of the base the request came under (undefined: the correct base, or none). */
    baseDefectOf (request: FastifyRequest): string | undefined
    /** Under a grading base: the defect a session made there carries, or null once the refusal is sent. */
    baseDefect (request: FastifyRequest, reply: FastifyReply): Promise<{ defect: string | undefined } | null>
    /** Counts a run started, or a result reported (the metrics', with an admin token; else nothing). */
    countGrading (event: 'run' | 'caught' | 'survived' | 'correct-passed' | 'correct-failed'): void
  }
}

async function grades (fastify: FastifyInstance): Promise<void> {
  const store = fastify.sessions
  const runs = store.grades as GradeRuns
  if (!fastify.hasDecorator('countGrading')) fastify.decorate('countGrading', () => {})
  // Only the requests under a base are here, and only while they are answered.
  const defectOf = new WeakMap<FastifyRequest, string>()

  fastify.decorate('gradeBaseStep', function gradeBase (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) {
    const { grade, base } = request.params as { grade: string, base: string }
    const found = isRunId(grade) && isBaseId(base) ? runs.get(grade) : Promise.resolve(undefined)
    found.then(run => {
      const named = run?.bases.find(b => b.id === base)
      if (named === undefined) {
        reply.fail(404, `No grading base ${JSON.stringify(`${grade}/${base}`)}: its run expired (a run lives ${GRADE_LIMITS.runMs / 60_000} minutes) or never was; start one with POST /grades`)
        return
      }
      if (named.defect !== null) defectOf.set(request, named.defect)
      done()
    }, done)
  })
  fastify.decorate('baseDefectOf', (request: FastifyRequest) => defectOf.get(request))

  fastify.decorate('baseDefect', async function baseDefect (request: FastifyRequest, reply: FastifyReply) {
    const { base } = request.params as { base: string }
    // Not the address's creation limit (a class's runs would reach it): the base's own.
    const { count, msLeft } = await store.countCreation(`grade-base:${base}`, GRADE_LIMITS.runMs)
    if (count > GRADE_LIMITS.sessionsPerBase) {
      reply.header('retry-after', String(Math.max(1, Math.ceil(msLeft / 1000))))
        .fail(429, `This grading base has made ${GRADE_LIMITS.sessionsPerBase} sessions, the most one base may make`)
      return null
    }
    return { defect: defectOf.get(request) }
  })
}

export default fp(grades, { name: 'grades', fastify: '5.x', dependencies: ['challenger-registry', 'errors'] })
