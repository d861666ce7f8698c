// Web pages: the landing page (GET /) and the challenges page (GET /gui/challenges[/{guid}]),
// server-rendered from src/domain/pages.ts with their stylesheet and refresh script, and, with an
// admin token only, the class board (GET /admin, src/domain/admin-page.ts) and the progress page's
// name form with its script (/gui/name.js). @fastify/helmet, in this plugin only, gives them and
// their assets a strict Content-Security-Policy and the browser's other protections (no framing
// among them). The learners' pages work without JavaScript (the scripts refresh the statuses and
// send the name form); the board is its script's work.
import helmet from '@fastify/helmet'
import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { browserHeaders } from '../src/domain/browser-headers.js'
import { challengeRows, challenges, SOLUTIONS_BASE } from '../src/domain/catalogue.js'
import { viewOf } from '../src/domain/journal.js'
import { ADMIN_SCRIPT, ADMIN_STYLESHEET, adminPage } from '../src/domain/admin-page.js'
import { challengesPage, CSP_DIRECTIVES, ICON, landingPage, NAME_SCRIPT, REFRESH_SCRIPT, solutionUrls, STYLESHEET } from '../src/domain/pages.js'
import { GuidParams, header } from '../src/domain/schemas.js'

const HTML = 'text/html; charset=utf-8'

function text (type: string, description: string) {
  return { description, content: { [type]: { schema: { type: 'string' } } } }
}

const pageHeaders = { 'Content-Security-Policy': header('Only the page\'s own stylesheet, script and icon; no framing') }

export interface PagesOptions {
  username: string
  password: string
  docs: boolean
  /** Requests kept per session: 0, no "Your last requests". */
  journalSize: number
  /** Link each challenge to the reference's solution page. */
  solutionLinks: boolean
}

const pages: FastifyPluginAsyncTypebox<PagesOptions> = async (fastify, options) => {
  await fastify.register(helmet, browserHeaders(CSP_DIRECTIVES))
  // Pages for people: they answer, but the API's document leaves them out.
  fastify.addHook('onRoute', route => { route.schema = { ...route.schema, hide: true } })
  const base = fastify.prefix
  const solutions = solutionUrls(options.solutionLinks ? challenges : [], SOLUTIONS_BASE)
  // The commands and requests name this server as the learner reached it (escaped: Host is the client's).
  const originOf = (request: FastifyRequest): string => `${request.protocol}://${request.host}`

  fastify.get('/', {
    schema: { summary: 'The landing page', response: { 200: { ...text(HTML, 'What the service is and how to start'), headers: pageHeaders } } }
  }, async (request, reply) => {
    const html = landingPage({
      base, origin: originOf(request), username: options.username, password: options.password, docs: options.docs, challengeCount: challenges.length
    })
    return reply.type(HTML).send(html)
  })

  const render = async (request: FastifyRequest, asked: string | null) => {
    // In single-player mode every page shows the one session.
    const guid = fastify.sessionGuidFor(asked)
    const record = guid === null ? undefined : await fastify.findSession(guid)
    const progress = record?.progress ?? 0
    const journal = record === undefined || options.journalSize === 0 ? undefined : await fastify.challengers.journal?.(record.guid)
    return challengesPage({
      base,
      origin: originOf(request),
      guid,
      live: record !== undefined,
      rows: challengeRows(progress).map(row => ({ ...row, solution: solutions.get(row.id) })),
      docs: options.docs,
      requests: journal?.map(viewOf) ?? null,
      name: record?.name,
      board: fastify.adminEnabled
    })
  }

  fastify.get('/gui/challenges', {
    schema: {
      summary: 'The challenges page without a session (or ?guid= to go to yours)',
      querystring: Type.Object({ guid: Type.Optional(Type.String({ description: 'Go to the page of this session' })) }),
      response: {
        200: { ...text(HTML, 'Every challenge, not done'), headers: pageHeaders },
        303: { description: 'To the page of the session in ?guid=', headers: { Location: header('/gui/challenges/{guid}') }, type: 'null' }
      }
    }
  }, async (request, reply) => {
    const guid = request.query.guid?.trim() ?? ''
    if (guid !== '') return reply.code(303).header('location', `${base}/gui/challenges/${encodeURIComponent(guid)}`).send()
    return reply.type(HTML).send(await render(request, null))
  })

  fastify.get('/gui/challenges/:guid', {
    schema: {
      summary: 'Your challenges, refreshed as you pass them',
      params: GuidParams,
      response: { 200: { ...text(HTML, 'Every challenge with the session\'s status and a progress bar'), headers: pageHeaders } }
    }
  }, async (request, reply) =>
    reply.type(HTML).send(await render(request, request.params.guid)))

  fastify.get('/gui/style.css', { schema: { summary: 'The pages\' stylesheet', response: { 200: text('text/css; charset=utf-8', 'CSS') } } },
    async (_request, reply) => reply.type('text/css; charset=utf-8').header('cache-control', 'max-age=300').send(STYLESHEET))
  fastify.get('/gui/refresh.js', { schema: { summary: 'The challenges page\'s refresh script', response: { 200: text('text/javascript; charset=utf-8', 'JavaScript') } } },
    async (_request, reply) => reply.type('text/javascript; charset=utf-8').header('cache-control', 'max-age=300').send(REFRESH_SCRIPT))

  fastify.get('/gui/icon.svg', { schema: { summary: 'The pages\' icon', response: { 200: text('image/svg+xml', 'SVG') } } },
    async (_request, reply) => reply.type('image/svg+xml').header('cache-control', 'max-age=300').send(ICON))

  const urls = ['/', '/gui/challenges', '/gui/challenges/:guid', '/gui/style.css', '/gui/refresh.js', '/gui/icon.svg']

  // The class board: the page and its files carry no data and need no token (the page asks for
  // it); they exist only where the board's API does, and so do the progress page's name form and
  // its script.
  if (fastify.adminEnabled) {
    fastify.get('/admin', {
      schema: { summary: 'The class board, for the instructor', response: { 200: { ...text(HTML, 'The board, filled in by its script once the admin token is entered'), headers: pageHeaders } } }
    }, async (_request, reply) => reply.type(HTML).send(adminPage(base)))
    fastify.get('/gui/admin.js', { schema: { summary: 'The class board\'s script', response: { 200: text('text/javascript; charset=utf-8', 'JavaScript') } } },
      async (_request, reply) => reply.type('text/javascript; charset=utf-8').header('cache-control', 'max-age=300').send(ADMIN_SCRIPT))
    fastify.get('/gui/admin.css', { schema: { summary: 'The class board\'s stylesheet', response: { 200: text('text/css; charset=utf-8', 'CSS') } } },
      async (_request, reply) => reply.type('text/css; charset=utf-8').header('cache-control', 'max-age=300').send(ADMIN_STYLESHEET))
    fastify.get('/gui/name.js', { schema: { summary: 'The progress page\'s name form script', response: { 200: text('text/javascript; charset=utf-8', 'JavaScript') } } },
      async (_request, reply) => reply.type('text/javascript; charset=utf-8').header('cache-control', 'max-age=300').send(NAME_SCRIPT))
    urls.push('/admin', '/gui/admin.js', '/gui/admin.css', '/gui/name.js')
  }

  for (const url of urls) fastify.allowOnly(url, ['GET', 'HEAD', 'OPTIONS'])
}

export default pages
