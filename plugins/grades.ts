// Grading runs (routes/grades.ts, docs/bug-hunt.md): the API is registered once more under each run's
// bases (src/app.ts), and a session made there carries its base's defect, which plugins/defects.ts
// meets as it meets a hunt's. This plugin gives the creation under a base what it needs: the base's
// defect, or the refusal (no such base, or too many sessions made under it).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { GRADE_LIMITS, isBaseId, isRunId, type GradeRuns } from '../src/domain/grades/runs.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Under a grading base: the defect a session made there carries (undefined: the correct base), or null once the refusal is sent. */
    baseDefect (request: FastifyRequest, reply: FastifyReply): Promise<{ defect: string | undefined } | null>
    /** Counts a run started, or a result reported (the metrics', with an admin token; else nothing). */
    countGrading (event: 'run' | 'caught' | 'survived' | 'correct-passed' | 'correct-failed'): void
  }
}

async function grades (fastify: FastifyInstance): Promise<void> {
  const store = fastify.sessions
  const runs = store.grades as GradeRuns
  if (!fastify.hasDecorator('countGrading')) fastify.decorate('countGrading', () => {})

  fastify.decorate('baseDefect', async function baseDefect (request: FastifyRequest, reply: FastifyReply) {
    const { grade, base } = request.params as { grade: string, base: string }
    const run = isRunId(grade) && isBaseId(base) ? await runs.get(grade) : undefined
    const found = run?.bases.find(b => b.id === base)
    if (found === undefined) {
      reply.fail(404, `No grading base ${JSON.stringify(`${grade}/${base}`)}: its run expired (a run lives ${GRADE_LIMITS.runMs / 60_000} minutes) or never was; start one with POST /grades`)
      return null
    }
    // Not the address's creation limit (a class's runs would reach it): the base's own.
    const { count, msLeft } = await store.countCreation(`grade-base:${base}`, GRADE_LIMITS.runMs)
    if (count > GRADE_LIMITS.sessionsPerBase) {
      reply.header('retry-after', String(Math.max(1, Math.ceil(msLeft / 1000))))
        .fail(429, `This grading base has made ${GRADE_LIMITS.sessionsPerBase} sessions, the most one base may make`)
      return null
    }
    return { defect: found.defect ?? undefined }
  })
}

export default fp(grades, { name: 'grades', fastify: '5.x', dependencies: ['challenger-registry', 'errors'] })
