// The class board's API, for the instructor (registered only with an admin token, behind
// `fastify.adminOnly`): GET /admin/sessions, every learner's session, most recently active first,
// a page at a time (JSON, or CSV with Accept: text/csv); GET /admin/summary, the class at a
// glance. Admin requests pass no challenge and are in no learner's journal. They are left out of
// the OpenAPI document, which is the learners'.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { challenges, isPassed, paddedId } from '../src/domain/catalogue.js'
import { BadCursorError, type SessionSummary } from '../src/domain/store.js'

/** Sessions per page of GET /admin/sessions: by default, and at most. */
export const DEFAULT_PAGE = 100
export const MAX_PAGE = 1000
/** The window of "active" in GET /admin/summary. */
export const ACTIVE_WINDOW_MS = 10 * 60 * 1000

const CSV = 'text/csv; charset=utf-8'
const JSON_TYPE = 'application/json'

/** The ids of the challenges passed in `progress`, in id order. */
function passedIds (progress: number): number[] {
  return challenges.filter(c => isPassed(progress, c)).map(c => c.id)
}

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break, quotes doubled.
 * A field that a spreadsheet would run as a formula (=, +, -, @, tab or CR first: names are the
 * learners' text) gets a ' in front, as OWASP advises.
 */
export function csvField (text: string): string {
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe
}

/** The sessions as CSV: a header line, then one line per session, CRLF after each (RFC 4180). */
export function sessionsCsv (sessions: readonly SessionSummary[]): string {
  const head = ['guid', 'name', 'createdAt', 'lastSeen', 'passed', ...challenges.map(c => `challenge ${paddedId(c.id)}`)]
  const rows = sessions.map(s => [
    s.guid, s.name ?? '', new Date(s.createdAt).toISOString(), new Date(s.lastSeen).toISOString(),
    String(passedIds(s.progress).length), ...challenges.map(c => String(isPassed(s.progress, c)))
  ])
  return [head, ...rows].map(cells => cells.map(csvField).join(',') + '\r\n').join('')
}

/** A page size from the query: a whole number from 1 to MAX_PAGE, or the reason it is not. */
function pageSize (raw: string | undefined): number | string {
  if (raw === undefined) return DEFAULT_PAGE
  if (!/^\d{1,7}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_PAGE) return `limit must be a whole number from 1 to ${MAX_PAGE}, got ${JSON.stringify(raw)}`
  return Number(raw)
}

const adminRoutes: FastifyPluginAsync = async (fastify) => {
  // Before anything else about the request is looked at: the token. Whatever the answer, the
  // request is no learner's business.
  fastify.addHook('onRequest', function admin (request, reply, done) {
    request.journaled = false
    fastify.adminOnly(request, reply, done)
  })
  // Not in the learners' document; every route here answers JSON or CSV.
  fastify.addHook('onRoute', route => {
    route.schema = { ...route.schema, hide: true }
    route.config = { ...route.config, journal: false }
  })
  const store = fastify.challengers

  /** JSON or CSV, as Accept asks (JSON when it does not say); null after answering 406. */
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

  fastify.get<{ Querystring: { limit?: string, cursor?: string } }>('/admin/sessions', async (request, reply) => {
    const type = formatOf(request, reply, [JSON_TYPE, 'text/csv'])
    if (type === null) return reply
    const limit = pageSize(request.query.limit)
    if (typeof limit === 'string') return reply.fail(400, `Invalid request: ${limit}`)
    if (store.list === undefined) return reply.fail(501, 'This session store keeps no list of its sessions')
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
    return reply.type(JSON_TYPE).send({
      total: page.total,
      sessions: page.sessions.map(s => ({
        guid: s.guid,
        name: s.name ?? null,
        createdAt: new Date(s.createdAt).toISOString(),
        lastSeen: new Date(s.lastSeen).toISOString(),
        passed: passedIds(s.progress)
      })),
      next: page.next
    })
  })
  fastify.allowOnly('/admin/sessions', ['GET', 'HEAD', 'OPTIONS'])

  fastify.get('/admin/summary', async (request, reply) => {
    if (formatOf(request, reply, [JSON_TYPE]) === null) return reply
    if (store.summary === undefined) return reply.fail(501, 'This session store keeps no list of its sessions')
    const summary = await store.summary(ACTIVE_WINDOW_MS)
    return reply.type(JSON_TYPE).send({
      live: summary.live,
      activeLast10Minutes: summary.active,
      challenges: challenges.map(c => ({ id: c.id, name: c.name, passedBy: summary.passedBy[c.bit] as number }))
    })
  })
  fastify.allowOnly('/admin/summary', ['GET', 'HEAD', 'OPTIONS'])
}

export default adminRoutes
