// /challenger: creates a session or confirms that the named one is live; /challenger/{guid}: the
// session as JSON (GET), to keep, and restored from that JSON (PUT) after a restart or expiry.
// Creating sessions is rate-limited per client address (plugins/api-bases.ts: one limit for both bases).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { progressFrom, routeResource } from '../src/domain/challenges/catalogue.js'
import { drawHunt } from '../src/domain/defects/catalogue.js'
import { huntComplete, revealed, whyCorrect } from '../src/domain/defects/hunt.js'
import { newToken } from '../src/domain/sessions/ids.js'
import type { Hunt, Session } from '../src/domain/sessions/store.js'
import { sessionJson } from '../src/domain/sessions/session-json.js'
import { truncate } from '../src/domain/sessions/truncate.js'
import { viewOf } from '../src/domain/journal/journal.js'
import { curlScript, httpFile, type ReplayContext } from '../src/domain/journal/replay.js'
import { findingXml, noteUnfitForXml, requestsXml, sessionXml } from '../src/domain/http/xml.js'
import { checkName } from '../src/domain/sessions/names.js'
import { answer, failure, FindingAnswer, FindingBody, GuidParams, header, JournalQuery, NameChange, NewSession, noBody, RequestList, SessionJson, SessionRestore, XML } from '../src/domain/http/schemas.js'

export interface ChallengerOptions {
  noteMaxLength: number
  /** Sessions one client address may create per minute; 0: no limit. */
  creationRateLimit: number
  /** For the journal's replays: the Basic credentials (the password only when it is the default) and the body limit. */
  username: string
  password: string
  bodyLimit: number
  /** Under a grading run's base (routes/grades.ts): a session made here carries the base's defect. */
  graded?: boolean
}

const Progress = header('Your progress page: /gui/challenges/{guid} (in single-player mode /gui/challenges)')
const Restored = header('Where the session is: /challenger/{guid}, under the base the PUT was sent to')
const RetryAfter = header('Seconds until this address may create a session again')

/** The documented default password (a replay writes it out; any other is a variable the learner sets). */
const DEFAULT_PASSWORD = 'password'

/** A creation outside a grading base: its session carries no defect. */
const NO_DEFECT = Object.freeze({ defect: undefined })

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Why single-player mode has no bug hunt. */
const SHARED_HUNT = 'No bug hunt in single-player mode: its one session is everyone\'s who uses this server, so a hunt\'s hidden defects would change all their answers. ' +
  'Hunt on a multi-player server (MODE=multi, the default), where each hunt is its own session\'s'

/** How a finding names a journal entry (entryId): its time in milliseconds, and its session's first 8 digits. */
const ENTRY_ID = /^(\d{1,16})-([0-9a-f]{8})$/

const challenger: FastifyPluginAsyncTypebox<ChallengerOptions> = async (fastify, options) => {
  fastify.documentAs('sessions')
  const most = options.creationRateLimit
  /** The 429 of a client over the creation limit, with the seconds until its window ends. */
  const refuseCreation = (reply: FastifyReply, seconds: number): void => {
    reply.header('retry-after', String(seconds)).fail(429, `This address has created ${most} sessions in the last minute: try again in ${seconds} s`)
  }
  /** Whether this request may create a session; when not, the 429 has been sent. */
  let mayCreate = async (_request: FastifyRequest, _reply: FastifyReply): Promise<boolean> => true
  const wait = fastify.creationWait
  if (wait !== null) {
    mayCreate = async (request, reply) => {
      const seconds = await wait(request)
      if (seconds === undefined) return true
      refuseCreation(reply, seconds)
      return false
    }
  }
  // A restored session's URL, under the base the PUT came to (as sent: a grading base's prefix has parameters).
  const restoredAt = (request: FastifyRequest, guid: string): string => `${request.url.slice(0, request.url.lastIndexOf('/challenger/'))}/challenger/${guid}`

  const creation: FastifyPluginAsyncTypebox = async (fastify) => {
    const created = fastify.bitFor('POST /challenger created')
    // A JSON body may name the learner; any other body is dropped, as the reference ignores it.
    fastify.acceptBodies('optional-json')
    const store = fastify.sessions

    /** What a JSON body asks of the new session: a name (none: undefined) and a hunt, or why it cannot. */
    const askedIn = (body: unknown): { name?: string, hunt: boolean } | { refused: string } => {
      if (typeof body !== 'object' || body === null || Array.isArray(body)) return { hunt: false }
      const hunt = 'hunt' in body ? body.hunt : false
      if (typeof hunt !== 'boolean') return { refused: `hunt must be true or false, got ${JSON.stringify(hunt) ?? String(hunt)}` }
      if (!('name' in body)) return { hunt }
      const named = checkName(body.name)
      return 'refused' in named ? named : { ...named, hunt }
    }
    const newHunt = (asked: boolean): Hunt | undefined => asked ? { hidden: drawHunt(), found: [] } : undefined
    const answerCreated = (reply: FastifyReply, guid: string): FastifyReply =>
      reply.header('x-challenger', guid).header('location', fastify.progressPage(guid)).code(201).send()

    /** A new session, made with its challenge passed: request.pass has nothing left to write. */
    const create = async (request: FastifyRequest, reply: FastifyReply, name: string | undefined, hunt: Hunt | undefined): Promise<FastifyReply> => {
      // Under a grading base, the base's own limit instead of the address's, and its defect.
      const carried = options.graded === true ? await fastify.baseDefect(request, reply) : await mayCreate(request, reply) ? NO_DEFECT : null
      if (carried === null) return reply
      const made = await store.create(name, created, hunt, carried.defect)
      request.session = made
      request.passedBits |= created
      return answerCreated(reply, made.guid)
    }

    /** The one session of single-player mode, handed out (and named, when the body names it). */
    const handOut = async (request: FastifyRequest, reply: FastifyReply, session: Session, name: string | undefined): Promise<FastifyReply> => {
      if (name !== undefined) await store.setName(session.guid, name)
      request.pass(created)
      return answerCreated(reply, session.guid)
    }

    fastify.post('/challenger', {
      schema: {
        summary: 'Create a session (challenge 01), or check that yours is live',
        description: 'Without a body, or with `{}` (what "Try it out" sends untouched), the new session has no name. ' +
          'To name it for the class board, send `{"name": "Ada"}` (in "Try it out", choose the example "A session named for the class board", ' +
          'or type the name in the body). `{"hunt": true}` makes a bug hunt: three deliberate defects hidden in the session\'s answers, ' +
          'to find and report with POST /challenger/{guid}/findings (docs/bug-hunt.md). Any other body is ignored.',
        // Documented, not validated: any body is taken, as the reference takes it, and only a JSON
        // object's name is looked at (checkName). plugins/docs.ts documents it as the optional body.
        'x-optional-body': NewSession,
        response: {
          200: noBody('The session in X-CHALLENGER is live', { Location: Progress }),
          201: noBody('A new session', { 'X-CHALLENGER': header('The new session id'), Location: Progress }),
          400: failure('A JSON body whose name is not 1 to 40 characters, or has control, bidirectional-control or invisible characters or a word in mixed scripts, or whose hunt is not a boolean'),
          404: failure('No live session by the id in X-CHALLENGER (one that expired recently is told so, with the restore command)'),
          409: failure('In single-player mode, a bug hunt: the one session is everyone\'s, and a hunt\'s defects would be in every answer'),
          413: failure('A body over the body limit'),
          415: failure('A Content-Type header that is not a valid media type'),
          429: failure('Too many sessions created from this address in the last minute', { 'Retry-After': RetryAfter })
        }
      }
    }, async (request, reply) => {
      // The reply is returned: an async handler that resolves to undefined before its answer's
      // (async) onSend hooks are done has Fastify send it a second time.
      const named = request.headers['x-challenger']
      const session = request.session
      if (named !== undefined && named !== '') {
        if (session === null) return reply.fail(404, await fastify.whyNoSession(named, `No session ${JSON.stringify(named)}: send POST /challenger without X-CHALLENGER to create one`))
        return reply.header('location', fastify.progressPage(session.guid)).code(200).send()
      }
      const given = askedIn(request.body)
      if ('refused' in given) return reply.fail(400, `Invalid request: ${given.refused}`)
      // In single-player mode the one session already exists: it is handed out, not made, and never hunts.
      if (session === null) await create(request, reply, given.name, newHunt(given.hunt))
      else if (given.hunt) reply.fail(409, SHARED_HUNT)
      else await handOut(request, reply, session, given.name)
      return reply
    })
    fastify.allowOnly('/challenger', ['POST', 'OPTIONS'])
  }

  const resource: FastifyPluginAsyncTypebox = async (fastify) => {
    fastify.acceptBodies('json')
    const ownSession = fastify.bitFor('GET /challenger/:guid own-session')
    const restored = fastify.bitFor('PUT /challenger/:guid restored')
    const mismatched = fastify.bitFor('PUT /challenger/:guid mismatch')
    const recreated = fastify.bitFor('PUT /challenger/:guid created')
    /** Challenge 44 or 46 for the restored session (the URL's, whoever sent the PUT), but for the progress page's own restore. */
    const passRestore = async (request: FastifyRequest, session: Session, bit: number): Promise<void> => {
      if (request.headers['x-challenges-page'] !== undefined || (session.progress & bit) !== 0) return
      await fastify.sessions.update(session.guid, { passed: bit })
      // The journal keeps this PUT in the restored session's, unless X-CHALLENGER named another.
      request.sessionInUrl ??= session
      if ((request.session ?? request.sessionInUrl).guid === session.guid) request.passedBits |= bit
    }
    /** Challenge 45 for the session the body names (the reference's X-CHALLENGER of that 409), when it is live. */
    const passMismatch = async (request: FastifyRequest, named: string): Promise<void> => {
      if (request.headers['x-challenges-page'] !== undefined || !UUID.test(named)) return
      if (request.session?.guid === named) request.pass(mismatched)
      else await fastify.sessions.update(named, { passed: mismatched })
    }
    /** The 404's message for a guid that names no live session (that it expired, when it did so recently). */
    const noLiveSession = async (guid: string): Promise<string> => await fastify.whyNoSession(guid, `No live session ${JSON.stringify(guid)}`)
    // The session in the URL is looked up by the pipeline (plugins/session.ts), as request.sessionInUrl.

    fastify.get('/challenger/:guid', {
      onRequest: fastify.requireAcceptable,
      config: { xml: sessionXml },
      schema: {
        summary: 'The whole session, to keep and PUT back later (challenge 43 with your id in X-CHALLENGER too)',
        params: GuidParams,
        response: { 200: answer(SessionJson, 'The session', {}, XML.session), 404: failure('No live session by that id (one that expired recently is told so, with the restore command)') }
      }
    }, async (request, reply) => {
      // Looked up once, by the pipeline.
      const session = request.sessionInUrl
      if (session === null) return reply.fail(404, await noLiveSession(request.params.guid))
      // As the reference's 2026 tests assert: the URL's session in X-CHALLENGER, whatever the request's header said.
      reply.header('x-challenger', session.guid)
      // Challenge 43 when X-CHALLENGER names this very session; passed before the answer is made, as there.
      if (request.method === 'GET' && request.session === session) request.pass(ownSession)
      return sessionJson({ ...session, progress: session.progress | request.passedBits })
    })

    fastify.put('/challenger/:guid', {
      onRequest: fastify.requireAcceptable,
      config: { xml: sessionXml },
      schema: {
        summary: 'Restore a session from the JSON of GET /challenger/{guid} (or a part of it, or a session saved from the reference app): challenges 44, 45, 46',
        params: GuidParams,
        body: SessionRestore,
        response: {
          200: answer(SessionJson, 'The live session\'s state was replaced', {}, XML.session),
          201: answer(SessionJson, 'The session was recreated', { Location: Restored }, XML.session),
          400: failure('A guid that is not a UUID, or a body that is not a session (a field of the wrong type, an unknown field or status key, a note with a character XML cannot carry)'),
          409: failure('The body\'s xChallenger is not the URL\'s guid (in single-player mode: not the one session)'),
          413: failure('A body over the body limit'),
          415: failure('A content type other than application/json'),
          429: failure('Too many sessions created from this address in the last minute', { 'Retry-After': RetryAfter })
        }
      }
    }, async (request, reply) => {
      const body = request.body
      if (!UUID.test(request.params.guid)) return reply.fail(400, `The session id in the URL must be a UUID, got ${JSON.stringify(request.params.guid)}`)
      // UUIDs are compared without regard to case, and kept in lowercase as the service issues them.
      const guid = request.params.guid.toLowerCase()
      if (body.xChallenger !== undefined && body.xChallenger.toLowerCase() !== guid) {
        await passMismatch(request, body.xChallenger.toLowerCase())
        return reply.fail(409, `URL GUID does not match payload X-CHALLENGER: the body's xChallenger ${JSON.stringify(body.xChallenger)} is not the session in the URL`)
      }
      // In single-player mode only the one session may be restored.
      const only = fastify.sessionGuidFor(guid)
      if (only !== guid) return reply.fail(409, `In single-player mode the only session is ${only}`)
      const live = request.sessionInUrl
      if (live === null && !await mayCreate(request, reply)) return reply
      let name: string | undefined
      if (body.name !== undefined) {
        const checked = checkName(body.name)
        if ('refused' in checked) return reply.fail(400, `Invalid request: ${checked.refused}`)
        name = checked.name
      }
      const unfit = noteUnfitForXml(body.secretNote ?? '')
      if (unfit !== undefined) return reply.fail(400, `Invalid request: ${unfit}`)
      const session: Session = {
        guid,
        // As the reference does: a live session keeps its token, a recreated one gets a new one.
        token: body.xAuthToken ?? live?.token ?? newToken(),
        note: truncate(body.secretNote ?? '', options.noteMaxLength),
        progress: progressFrom(body.challengeStatus ?? {}),
        name,
        // The body's hunt is never read: a live session keeps its own (found or not), one made again has none.
        hunt: live?.hunt
      }
      const outcome = await fastify.sessions.restore(session)
      if (outcome === 'created') reply.header('location', restoredAt(request, guid))
      await passRestore(request, session, outcome === 'created' ? recreated : restored)
      // The session as restored: the challenge this PUT passed shows from the next read (as in the reference,
      // which passes it once the answer is made, so that the answer is the JSON that was sent).
      return reply.code(outcome === 'created' ? 201 : 200).send(sessionJson(session))
    })

    fastify.patch('/challenger/:guid', {
      onRequest: fastify.requireAcceptable,
      config: { xml: sessionXml },
      schema: {
        summary: 'Name the session (or with null, unname it), for the class board',
        params: GuidParams,
        body: NameChange,
        response: {
          200: answer(SessionJson, 'The session, with its name', {}, XML.session),
          400: failure('A body that is not {"name": …}, or a name that is not 1 to 40 characters or has control, bidirectional-control or invisible characters or a word in mixed scripts'),
          404: failure('No live session by that id'),
          413: failure('A body over the body limit'),
          415: failure('A content type other than application/json')
        }
      }
    }, async (request, reply) => {
      if (request.sessionInUrl === null) return reply.fail(404, await noLiveSession(request.params.guid))
      let name: string | undefined
      if (request.body.name !== null) {
        const checked = checkName(request.body.name)
        if ('refused' in checked) return reply.fail(400, `Invalid request: ${checked.refused}`)
        name = checked.name
      }
      const session = await fastify.sessions.setName(request.sessionInUrl.guid, name)
      if (session === undefined) return reply.fail(404, await noLiveSession(request.params.guid))
      return sessionJson(session)
    })

    fastify.allowOnly('/challenger/:guid', ['GET', 'HEAD', 'PUT', 'PATCH', 'OPTIONS'])

    // The journal as requests to send again: text, whatever Accept says of JSON and XML.
    const replays = { curl: { render: curlScript, extension: 'sh' }, http: { render: httpFile, extension: 'http' } }
    const replayAsked = (request: FastifyRequest): boolean => Object.hasOwn(replays, (request.query as { format?: unknown }).format as string)
    fastify.get('/challenger/:guid/requests', {
      onRequest: function acceptableUnlessReplay (request, reply, done) { if (replayAsked(request)) done(); else fastify.requireAcceptable(request, reply, done) },
      // Reading the journal is not a request the journal keeps.
      config: { xml: requestsXml, journal: false },
      schema: {
        summary: 'What the server saw: the session\'s last requests, what each passed, and why a near miss missed',
        description: 'With `?format=curl`, the same requests oldest first as a shell script of curl commands; with `?format=http`, as a .http file ' +
          '(VS Code\'s REST Client, JetBrains\' HTTP Client): text/plain, the token as a variable, never the secret itself (docs/api.md).',
        params: GuidParams,
        querystring: JournalQuery,
        response: {
          200: answer(RequestList, 'The session\'s last requests, newest first (with ?format, text/plain: the requests to send again)', {}, XML.requests),
          400: failure('A format other than curl or http'),
          404: failure('No live session by that id')
        }
      }
    }, async (request, reply) => {
      const format = request.query.format
      if (format !== undefined && !replayAsked(request)) return reply.fail(400, `format must be curl or http (or left out, for JSON or XML), got ${JSON.stringify(format)}`)
      const session = request.sessionInUrl
      const entries = session === null ? undefined : await fastify.sessions.journal(session.guid)
      if (entries === undefined) return reply.fail(404, await noLiveSession(request.params.guid))
      const guid = (session as Session).guid
      const requests = entries.map(entry => viewOf(entry, guid))
      if (format === undefined) return { requests }
      const replay = replays[format as keyof typeof replays]
      // The mount prefix: this base's, without the API's /api.
      const prefix = fastify.prefix.replace(/\/api$/, '')
      const context: ReplayContext = {
        base: `${request.protocol}://${request.host}${prefix}`,
        prefix,
        guid,
        username: options.username,
        password: options.password === DEFAULT_PASSWORD ? options.password : null,
        noteMaxLength: options.noteMaxLength,
        bodyLimit: options.bodyLimit
      }
      // Text goes out as it is: the 200's schema is the JSON answer's.
      const text = replay.render(requests, context) as never
      return reply.type('text/plain; charset=utf-8').header('content-disposition', `inline; filename="requests-${guid.slice(0, 8)}.${replay.extension}"`).send(text)
    })
    fastify.allowOnly('/challenger/:guid/requests', ['GET', 'HEAD', 'OPTIONS'])

    fastify.post('/challenger/:guid/findings', {
      onRequest: fastify.requireAcceptable,
      config: { xml: findingXml },
      schema: {
        summary: 'In a bug hunt: report an answer that looks wrong, by its journal entry',
        description: 'Name the entry by its `id` in GET /challenger/{guid}/requests. When a hidden defect changed that answer, it is found and revealed; ' +
          'when not, the answer says why the service was right there (docs/bug-hunt.md).',
        params: GuidParams,
        body: FindingBody,
        response: {
          200: answer(FindingAnswer, 'A defect found, or why the answer was correct', {}, XML.finding),
          400: failure('A session that is not a hunt, a body that names no entry, another session\'s entry, or an entry not in the journal'),
          404: failure('No live session by that id'),
          413: failure('A body over the body limit'),
          415: failure('A content type other than application/json')
        }
      }
    }, async (request, reply) => {
      const session = request.sessionInUrl
      if (session === null) return reply.fail(404, await noLiveSession(request.params.guid))
      const hunt = session.hunt
      if (hunt === undefined) return reply.fail(400, 'This session is not a bug hunt: make one with POST /challenger and the body {"hunt": true}')
      const named = ENTRY_ID.exec(request.body.entry)
      if (named === null) return reply.fail(400, `Invalid request: entry must be an entry's id from GET /challenger/${session.guid}/requests, such as "1763806530123-${session.guid.slice(0, 8)}"; got ${JSON.stringify(request.body.entry)}`)
      if (named[2] !== session.guid.slice(0, 8)) return reply.fail(400, `Entry ${JSON.stringify(request.body.entry)} is another session's: report it on the session whose journal holds it`)
      const at = Number(named[1])
      const entry = (await fastify.sessions.journal(session.guid))?.find(kept => kept.at === at)
      if (entry === undefined) return reply.fail(400, `No entry ${JSON.stringify(request.body.entry)} in this session's journal, which keeps its last requests: GET /challenger/${session.guid}/requests lists them`)
      const defect = entry.defect
      if (defect !== undefined && hunt.hidden.includes(defect)) {
        if (!hunt.found.includes(defect)) await fastify.sessions.update(session.guid, { found: defect })
        request.huntFinding = 'found'
        const found = hunt.found.includes(defect) ? hunt : { hidden: hunt.hidden, found: [...hunt.found, defect] }
        return { verdict: 'found' as const, defect: revealed(defect), found: found.found.length, hidden: hunt.hidden.length, complete: huntComplete(found) }
      }
      request.huntFinding = 'correct'
      const path = routeResource(entry.path, fastify.prefix.replace(/\/api$/, ''))
      return { verdict: 'correct' as const, explanation: whyCorrect({ method: entry.method, path, status: entry.status, known: entry.status !== 404 }), found: hunt.found.length, hidden: hunt.hidden.length, complete: huntComplete(hunt) }
    })
    fastify.allowOnly('/challenger/:guid/findings', ['POST', 'OPTIONS'])
  }

  await fastify.register(creation)
  await fastify.register(resource)
}

export default challenger
