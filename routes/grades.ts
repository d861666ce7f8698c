// /grades: a grading run on the class server (docs/bug-hunt.md, "Grade a class"). POST /grades starts
// one for the session in X-CHALLENGER and lists its bases: the correct service and one per defect of
// the catalogue, under opaque ids (the API answers under each: src/app.ts). The learner runs a suite
// against each base and reports each exit code (POST /grades/{id}/results), which is the learner's
// word; GET /grades/{id} scores the run. Limits: per session, per address, in all (GRADE_LIMITS).
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { clientKey } from '../src/domain/http/connections.js'
import { answer, failure, header } from '../src/domain/http/schemas.js'
import { GRADE_LIMITS, isBaseId, isRunId, newBases, scoreOf, scoreText, type GradeRun, type GradeRuns } from '../src/domain/grades/runs.js'
import { GradeParams, GradeResultBody, GradeRunJson } from '../src/domain/grades/schemas.js'

const JSON_TYPE = 'application/json'
const TEXT = 'text/plain'
const RetryAfter = header('Seconds until a run may start')

const grades: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.documentAs('grades')
  const store = fastify.sessions
  const runs = store.grades as GradeRuns
  const prefix = fastify.prefix

  /** The answer's type: JSON, or text for a shell; null once the 406 is sent. */
  const formatOf = (request: FastifyRequest, reply: FastifyReply): string | null => {
    const accept = request.headers.accept
    if (accept === undefined) return JSON_TYPE
    const chosen = request.accepts().type([JSON_TYPE, TEXT])
    if (chosen !== false) return chosen as string
    reply.fail(406, `Accept ${JSON.stringify(accept)} allows neither ${JSON_TYPE} nor ${TEXT}`)
    return null
  }
  const origin = (request: FastifyRequest): string => `${request.protocol}://${request.host}${prefix}`
  const runUrl = (request: FastifyRequest, run: GradeRun): string => `${origin(request)}/grades/${run.id}`

  /** The run as GET /grades/{id} answers it. */
  const runJson = (request: FastifyRequest, run: GradeRun): Record<string, unknown> => {
    const score = scoreOf(run)
    const url = runUrl(request, run)
    return {
      id: run.id,
      results: `${url}/results`,
      createdAt: new Date(run.createdAt).toISOString(),
      expiresAt: new Date(run.expiresAt).toISOString(),
      bases: run.bases.map(base => ({ url: `${url}/${base.id}`, correct: base.defect === null, exitCode: run.results[base.id] ?? null })),
      caught: score.caught,
      survived: score.survived,
      pending: score.pending,
      total: score.total,
      correctExitCode: score.correctExitCode,
      score: score.percent,
      complete: score.complete,
      survivors: score.survivors
    }
  }
  /** The answer in the type negotiated (a string is sent as it is, past the JSON schema). */
  const sendAs = (reply: FastifyReply, type: string, payload: unknown): FastifyReply => reply.type(type === TEXT ? `${TEXT}; charset=utf-8` : type).send(payload)
  const sendRun = (request: FastifyRequest, reply: FastifyReply, type: string, run: GradeRun): FastifyReply =>
    sendAs(reply, type, type === TEXT ? scoreText(scoreOf(run)) : runJson(request, run))

  const tooMany = (reply: FastifyReply, seconds: number, message: string): FastifyReply =>
    reply.header('retry-after', String(seconds)).fail(429, message)

  fastify.post('/grades', {
    schema: {
      summary: 'Start a grading run for your session: a base URL for the correct service and one per defect',
      description: 'Run your suite once against each base (API_BASE_URL set to it) and report each exit code with POST /grades/{id}/results. ' +
        'Every session made under a base (POST <base>/challenger) carries that base\'s defect; which defect is not said. ' +
        'With Accept: text/plain the answer is lines: the run\'s URL, then each base\'s, for a shell loop (docs/bug-hunt.md).',
      security: [{ challenger: [] }],
      response: {
        201: answer(GradeRunJson, 'The run, nothing reported yet', { Location: header('The run: /grades/{id}') }),
        401: failure('No X-CHALLENGER: a run belongs to a session'),
        404: failure('No live session by the id in X-CHALLENGER'),
        406: failure('An Accept that allows neither application/json nor text/plain'),
        429: failure(`Too many runs: ${GRADE_LIMITS.perSession} live per session, ${GRADE_LIMITS.perAddress} started per address in an hour, ${GRADE_LIMITS.total} live in all`, { 'Retry-After': RetryAfter })
      }
    }
  }, async (request, reply) => {
    const type = formatOf(request, reply)
    if (type === null) return reply
    const named = request.headers['x-challenger']
    if (named === undefined || named === '') return reply.fail(401, 'A grading run belongs to a session: send your session id in X-CHALLENGER')
    const session = await fastify.findSession(named as string)
    if (session === undefined) return reply.fail(404, await fastify.whyNoSession(named, `No session ${JSON.stringify(named)}: send POST /challenger to make one`))
    const { count, msLeft } = await store.countCreation(`grade:${clientKey(request.ip)}`, GRADE_LIMITS.addressWindowMs)
    if (count > GRADE_LIMITS.perAddress) {
      return tooMany(reply, Math.max(1, Math.ceil(msLeft / 1000)), `This address has started ${GRADE_LIMITS.perAddress} grading runs in the last hour`)
    }
    const run = await runs.start(session.guid, newBases(), GRADE_LIMITS)
    if ('refused' in run) {
      return tooMany(reply, run.retryAfterSeconds, run.refused === 'session'
        ? `This session has ${GRADE_LIMITS.perSession} grading runs under way: the oldest ends in ${run.retryAfterSeconds} s`
        : `The server has ${GRADE_LIMITS.total} grading runs under way, the most it keeps: try again in ${run.retryAfterSeconds} s`)
    }
    fastify.countGrading('run')
    const url = runUrl(request, run)
    reply.code(201).header('location', `${prefix}/grades/${run.id}`)
    return sendAs(reply, type, type === TEXT ? [url, ...run.bases.map(base => `${url}/${base.id}`)].join('\n') + '\n' : runJson(request, run))
  })
  fastify.allowOnly('/grades', ['POST', 'OPTIONS'])

  /** The live run of the URL, or null once the 404 is sent. */
  const runOf = async (id: string, reply: FastifyReply): Promise<GradeRun | null> => {
    const run = isRunId(id) ? await runs.get(id) : undefined
    if (run !== undefined) return run
    reply.fail(404, `No grading run ${JSON.stringify(id)}: it expired (a run lives ${GRADE_LIMITS.runMs / 60_000} minutes) or never was`)
    return null
  }

  fastify.get('/grades/:grade', {
    schema: {
      summary: 'A grading run\'s score: caught of total, and each survivor\'s family and endpoint',
      description: 'The run\'s id is its key: anyone who has it may read the score. With Accept: text/plain, the score in a few lines.',
      params: GradeParams,
      security: [{}],
      response: {
        200: answer(GradeRunJson, 'The run and its score'),
        404: failure('No live run by that id'),
        406: failure('An Accept that allows neither application/json nor text/plain')
      }
    }
  }, async (request, reply) => {
    const type = formatOf(request, reply)
    if (type === null) return reply
    const run = await runOf(request.params.grade, reply)
    if (run === null) return reply
    return sendRun(request, reply, type, run)
  })
  fastify.allowOnly('/grades/:grade', ['GET', 'HEAD', 'OPTIONS'])

  await fastify.register(async function results (plain) {
    const fastify = plain.withTypeProvider<TypeBoxTypeProvider>()
    fastify.acceptBodies('json')
    fastify.post('/grades/:grade/results', {
      schema: {
        summary: 'Report a base\'s exit code: 0 passed (the defect survived), anything else failed (caught)',
        description: 'Send the X-CHALLENGER that started the run. The first report of a base stands. The exit code is your word: the server cannot see your suite run.',
        params: GradeParams,
        body: GradeResultBody,
        security: [{ challenger: [] }],
        response: {
          200: answer(GradeRunJson, 'Kept: the run and its score so far'),
          400: failure('A body that is not {"base": "<url or id>", "exitCode": 0-255}, or a base that is not the run\'s'),
          401: failure('No X-CHALLENGER'),
          403: failure('X-CHALLENGER is not the session that started the run'),
          404: failure('No live run by that id'),
          406: failure('An Accept that allows neither application/json nor text/plain'),
          409: failure('That base is reported already: the first report stands'),
          413: failure('A body over the body limit'),
          415: failure('A content type other than application/json')
        }
      }
    }, async (request, reply) => {
      const type = formatOf(request, reply)
      if (type === null) return reply
      const run = await runOf(request.params.grade, reply)
      if (run === null) return reply
      const named = request.headers['x-challenger']
      if (named === undefined || named === '') return reply.fail(401, 'Send the X-CHALLENGER of the session that started the run')
      if ((named as string).toLowerCase() !== run.owner) return reply.fail(403, 'This run is another session\'s: send the X-CHALLENGER that started it')
      const base = request.body.base.replace(/\/+$/, '').split('/').pop() as string
      const which = isBaseId(base) ? run.bases.find(b => b.id === base) : undefined
      if (which === undefined) return reply.fail(400, `Invalid request: ${JSON.stringify(request.body.base)} is none of this run's bases (GET /grades/${run.id} lists them)`)
      const exitCode = request.body.exitCode
      const outcome = await runs.report(run.id, base, exitCode)
      if (outcome === 'gone') return reply.fail(404, `The grading run ${run.id} ended as the result came`)
      if (outcome === 'already') return reply.fail(409, `Base ${base} is reported already: the first report stands`)
      fastify.countGrading(which.defect === null ? (exitCode === 0 ? 'correct-passed' : 'correct-failed') : (exitCode === 0 ? 'survived' : 'caught'))
      return sendRun(request, reply, type, { ...run, results: { ...run.results, [base]: exitCode } })
    })
    fastify.allowOnly('/grades/:grade/results', ['POST', 'OPTIONS'])
  })
}

export default grades
