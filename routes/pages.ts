// Web pages (landing, challenges, and the class board with an admin token) and public/gui/'s files, under
// @fastify/helmet's strict policy. The learners' pages work without JavaScript; the board is its script's.
import { existsSync, readdirSync } from 'node:fs'
import { extname } from 'node:path'
import { fileURLToPath } from 'node:url'
import helmet from '@fastify/helmet'
import fastifyStatic from '@fastify/static'
import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { browserHeaders } from '../src/domain/http/browser-headers.js'
import { challengeRows, challenges, SOLUTIONS_BASE } from '../src/domain/challenges/catalogue.js'
import { viewOf } from '../src/domain/journal/journal.js'
import { badView, BoardQuery, boardPage, isBoardView } from '../src/domain/pages/admin-page.js'
import { HuntState, huntView } from '../src/domain/pages/hunt.js'
import { challengesPage, CSP_DIRECTIVES, landingPage, solutionUrls } from '../src/domain/pages/pages.js'
import { failure, GuidParams, header, SessionJson } from '../src/domain/http/schemas.js'
import { sessionJson } from '../src/domain/sessions/session-json.js'

const HTML = 'text/html; charset=utf-8'

/** GET /gui/challenges/{guid}/session: the live session's JSON, or null and whether it expired recently. */
const SessionCopy = Type.Object({ session: Type.Union([SessionJson, Type.Null()]), expired: Type.Boolean() })

function text (type: string, description: string) {
  return { description, content: { [type]: { schema: { type: 'string' } } } }
}

/** The files of public/gui/ served only with a class board. */
export const BOARD_FILES: readonly string[] = ['admin.js', 'admin.css', 'name.js', 'projector.js', 'projector.css']

/** The Content-Type of each kind of file in public/gui/ (text/javascript, as RFC 9239 says). */
export const FILE_TYPES: Readonly<Record<string, string>> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml'
}

/** public/gui/ for the module at `moduleUrl`: one floor above routes/, or two above dist/routes/ once built. */
export function guiFolder (moduleUrl: string): string {
  const candidates = ['../public/gui/', '../../public/gui/'].map(path => fileURLToPath(new URL(path, moduleUrl)))
  const found = candidates.find(folder => existsSync(folder))
  if (found === undefined) throw new Error(`api-challenges: the pages' files are missing: neither ${candidates.join(' nor ')} exists`)
  return found
}

const pageHeaders = { 'Content-Security-Policy': header('Only the page\'s own stylesheet, script and icon; no framing') }

export interface PagesOptions {
  /** How long a session lasts without a request, said on the page of one that expired. */
  sessionIdleMs: number
  username: string
  password: string
  docs: boolean
  journalSize: number
  solutionLinks: boolean
}

const pages: FastifyPluginAsyncTypebox<PagesOptions> = async (fastify, options) => {
  await fastify.register(helmet, browserHeaders(CSP_DIRECTIVES))
  fastify.addHook('onRoute', route => { route.schema = { ...route.schema, hide: true } })
  const base = fastify.prefix
  const solutions = solutionUrls(options.solutionLinks ? challenges : [], SOLUTIONS_BASE)
  // The pages name this server as the learner reached it (escaped: Host is the client's).
  const originOf = (request: FastifyRequest): string => `${request.protocol}://${request.host}`

  fastify.get('/', {
    schema: { summary: 'The landing page', response: { 200: { ...text(HTML, 'What the service is and how to start'), headers: pageHeaders } } }
  }, async (request, reply) => {
    const html = landingPage({
      base, origin: originOf(request), username: options.username, password: options.password, docs: options.docs, challengeCount: challenges.length
    })
    return reply.type(HTML).send(html)
  })

  // Multi-player mode: a page keeps its session in the browser (single-player's never expires).
  const keep = fastify.sessionGuidFor(null) === null
  const render = async (request: FastifyRequest, asked: string | null) => {
    const guid = fastify.sessionGuidFor(asked)
    const session = guid === null ? undefined : await fastify.findSession(guid)
    // Asked only when the session is not live.
    const expired = guid !== null && session === undefined && await fastify.sessions.expiredRecently(guid.toLowerCase())
    const progress = session?.progress ?? 0
    const journal = session === undefined || options.journalSize === 0 ? undefined : await fastify.sessions.journal(session.guid)
    return challengesPage({
      base,
      origin: originOf(request),
      guid,
      live: session !== undefined,
      rows: challengeRows(progress).map(row => ({ ...row, solution: solutions.get(row.id) })),
      docs: options.docs,
      requests: session === undefined ? null : journal?.map(entry => viewOf(entry, session.guid)) ?? null,
      name: session?.name,
      board: fastify.adminEnabled,
      hunt: session?.hunt === undefined ? null : huntView(session.hunt),
      keep,
      expiredAfterMs: expired ? options.sessionIdleMs : undefined
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

  // The progress page's refresh reads its hunt section from here (the found defects revealed, the hidden only counted).
  fastify.get('/gui/challenges/:guid/hunt', {
    schema: {
      summary: 'The progress page\'s bug hunt, for its refresh',
      params: GuidParams,
      response: { 200: HuntState, 404: failure('No live session by that id') }
    }
  }, async (request, reply) => {
    const guid = fastify.sessionGuidFor(request.params.guid)
    const session = guid === null ? undefined : await fastify.findSession(guid)
    if (session === undefined) return reply.fail(404, `No live session ${JSON.stringify(request.params.guid)}`)
    return { hunt: session.hunt === undefined ? null : huntView(session.hunt) }
  })

  // The progress page's restore.js keeps the session in the browser, as GET /challenger/{guid} answers it:
  // read here so that the page's own reads stay out of the learner's journal, and a session gone is a
  // 200 that says so (a 404 would be a console error every 2 seconds).
  fastify.get('/gui/challenges/:guid/session', {
    schema: {
      summary: 'The session\'s JSON, for the progress page to keep in the browser and restore',
      params: GuidParams,
      response: { 200: SessionCopy }
    }
  }, async (request) => {
    const guid = fastify.sessionGuidFor(request.params.guid)
    const session = guid === null ? undefined : await fastify.findSession(guid)
    if (session !== undefined) return { session: sessionJson(session), expired: false }
    return { session: null, expired: guid !== null && await fastify.sessions.expiredRecently(guid.toLowerCase()) }
  })

  // Each file a route of its own (no wildcard: other paths are the service's 404, other methods its 405).
  // No reply.sendFile: a host's own stays the host's.
  const folder = guiFolder(import.meta.url)
  const hidden = fastify.adminEnabled ? [] : [...BOARD_FILES]
  const files = readdirSync(folder).filter(file => !hidden.includes(file))
  await fastify.register(fastifyStatic, {
    root: folder,
    prefix: '/gui/',
    wildcard: false,
    globIgnore: hidden,
    decorateReply: false,
    contentType: false,
    cacheControl: false,
    etag: false,
    lastModified: false,
    acceptRanges: false,
    setHeaders: (res, path) => {
      res.setHeader('Content-Type', FILE_TYPES[extname(path)] as string)
      res.setHeader('Cache-Control', 'max-age=300')
    }
  })
  const urls = ['/', '/gui/challenges', '/gui/challenges/:guid', '/gui/challenges/:guid/hunt', '/gui/challenges/:guid/session', ...files.map(file => `/gui/${file}`)]

  // The board's page carries no data and needs no token (it asks for one); it exists only with the board's API.
  if (fastify.adminEnabled) {
    fastify.get('/admin', {
      schema: { summary: 'The class board, for the instructor', querystring: BoardQuery, response: { 200: { ...text(HTML, 'The board, filled in by its script once the admin token is entered'), headers: pageHeaders }, 400: failure('A view the board does not have') } }
    }, async (request, reply) => {
      const view = request.query.view ?? 'board'
      if (!isBoardView(view)) return reply.fail(400, badView(view))
      return reply.type(HTML).send(await boardPage(base, originOf(request), view))
    })
    urls.push('/admin')
  }

  for (const url of urls) fastify.allowOnly(url, ['GET', 'HEAD', 'OPTIONS'])
}

export default pages
