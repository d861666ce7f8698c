// The class board's API, behind the admin token: GET /admin/sessions (most recently active first, JSON
// or CSV, a page at a time) and GET /admin/summary. Left out of the journal and the OpenAPI document.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ACTIVE_WINDOW_MS, isoSeconds, pageSize, sessionsCsv } from '../src/domain/pages/admin-csv.js'
import { challenges, passedIds } from '../src/domain/challenges/catalogue.js'
import { MEDALS, medalsOf } from '../src/domain/challenges/medals.js'
import { AdminPageQuery, AdminSessionPage, AdminSummary } from '../src/domain/http/schemas.js'
import { scoreOf, type GradeRun } from '../src/domain/grades/runs.js'
import { BadCursorError } from '../src/domain/sessions/store.js'

const CSV = 'text/csv; charset=utf-8'
const JSON_TYPE = 'application/json'
const MEDAL_NAMES = new Map(MEDALS.map(medal => [medal.id, medal.name]))

/** A learner's latest grading run as the board shows it: the score and the survivors' families. */
function gradeOf (run: GradeRun | undefined): { caught: number, total: number, score: number | null, complete: boolean, survivors: string[] } | null {
  if (run === undefined) return null
  const score = scoreOf(run)
  return { caught: score.caught, total: score.total, score: score.percent, complete: score.complete, survivors: score.survivors.map(s => s.family) }
}

const adminRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.adminRoutes()
  const store = fastify.sessions

  const formatOf = (request: FastifyRequest, reply: FastifyReply, types: string[]): string | null => {
    const accept = request.headers.accept
    if (accept === undefined || accept === '*/*') return JSON_TYPE
    const chosen = request.accepts().type(types)
    if (chosen === false) {
      reply.fail(406, `Accept ${JSON.stringify(accept)} allows none of ${types.join(', ')}`)
      return null
    }
    return chosen as string
  }

  const config = { admin: true }
  fastify.get('/admin/sessions', {
    config,
    schema: {
      querystring: AdminPageQuery,
      response: { 200: { content: { 'application/json': { schema: AdminSessionPage }, 'text/csv': { schema: Type.String() } } } }
    }
  }, async (request, reply) => {
    const type = formatOf(request, reply, [JSON_TYPE, 'text/csv'])
    if (type === null) return reply
    const limit = pageSize(request.query.limit)
    if (typeof limit === 'string') return reply.fail(400, `Invalid request: ${limit}`)
    let page
    try {
      page = await store.list(limit, request.query.cursor)
    } catch (error) {
      if (error instanceof BadCursorError) return reply.fail(400, error.message)
      throw error
    }
    reply.header('x-total-count', String(page.total))
    if (page.next !== null) {
      const url = new URLSearchParams({ limit: String(limit), cursor: page.next })
      reply.header('link', `<${fastify.prefix}/admin/sessions?${url.toString()}>; rel="next"`)
    }
    if (type === 'text/csv') return reply.type(CSV).header('content-disposition', 'attachment; filename="sessions.csv"').send(sessionsCsv(page.sessions))
    const runs = await store.grades?.latest(page.sessions.map(s => s.guid)) ?? new Map<string, GradeRun>()
    return reply.type(JSON_TYPE).send({
      total: page.total,
      sessions: page.sessions.map(s => ({
        guid: s.guid,
        name: s.name ?? null,
        createdAt: isoSeconds(s.createdAt),
        lastSeen: new Date(s.lastSeen).toISOString(),
        passed: passedIds(s.progress),
        hunt: s.hunt === undefined ? null : { found: s.hunt.found, hidden: s.hunt.hidden },
        medals: medalsOf({ passed: passedIds(s.progress), hunt: s.hunt }).map(id => ({ id, name: MEDAL_NAMES.get(id) as string })),
        grade: gradeOf(runs.get(s.guid))
      })),
      next: page.next
    })
  })
  fastify.allowOnly('/admin/sessions', ['GET', 'HEAD', 'OPTIONS'], config)

  fastify.get('/admin/summary', { config, schema: { response: { 200: AdminSummary } } }, async (request, reply) => {
    if (formatOf(request, reply, [JSON_TYPE]) === null) return reply
    const summary = await store.summary(ACTIVE_WINDOW_MS)
    return reply.type(JSON_TYPE).send({
      live: summary.live,
      activeLast10Minutes: summary.active,
      challenges: challenges.map(c => ({ id: c.id, name: c.name, passedBy: summary.passedBy[c.bit] as number }))
    })
  })
  fastify.allowOnly('/admin/summary', ['GET', 'HEAD', 'OPTIONS'], config)
}

export default adminRoutes
