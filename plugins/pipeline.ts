// What happens to a request, top to bottom: the one place its order is written. Each route gets,
// when it is registered, exactly the steps it needs (as @fastify/rate-limit attaches its hooks): one
// `onRoute` reads the route's config and the options, and the 404 has its own list. The steps
// themselves are the capabilities' own (each plugin's decorator, made once at start-up); nothing
// here is a global hook but @fastify/cors's, which every answer needs (plugins/cors.ts).
//
//   1. arrival    every route   Title-Case names, one X-CHALLENGER, the echo and nosniff, 431, Host (plugins/headers.ts)
//   2. client     TRUST_PROXY   an X-Forwarded-For client that is no address: 400 (plugins/client-address.ts)
//   3. session    the API, 404  X-CHALLENGER's session, looked up once (plugins/session.ts), and a session
//                               named in the URL (/challenger/{guid}…); with Redis, a note write's is
//                               judged at the finish instead, in the same store call as its change
//   4. defects    the API, 404  the hunt's or grade's defects, met with the session (plugins/defects.ts); under a grading
//                               base, the base is looked up first and its defect met without the session's (plugins/grades.ts)
//   5. guard      per route     the route's own early answer: the admin token, 406, OPTIONS and 405
//   6. body       body routes   a Content-Type set aside before parsing (also where a body is sent but never
//                               read, so that Fastify's 415 does not come first), the verdict after the token (plugins/bodies.ts)
//   7. auth       token routes  the session's token, a preHandler (plugins/auth.ts)
//   8. handler    the route's   its answer, and the changes it asks for (request.pass, request.writeNote)
//   9. format     XML, body     the answer as XML when asked (plugins/formats.ts); a defect's payload
//  10. finish     every route   Connection: close while draining, a defect's answer, the session's
//                               changes and its journal entry in one store call, the metrics
//
// A request carries the fields of the steps its route has (Fastify copies a context's fields into every
// request it makes there): the API's and the 404's, the arrival's, session's, defects' and journal's
// (API_FIELDS, declared by servesApi on the API's context); a route of a plugin that takes bodies, the
// body steps' (fastify.acceptBodies); a token's route, the token's (fastify.tokenAuth); every request,
// the negotiation's (plugins/formats.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler, onSendHookHandler, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { routeBase } from '../src/domain/challenges/catalogue.js'
import { GRADE_BASE } from '../src/domain/http/api-base.js'
import { DEFECT_FIELDS } from './defects.js'
import { CHALLENGER_FIELDS } from './headers.js'
import { JOURNAL_FIELDS } from './journal.js'
import { SESSION_FIELDS } from './session.js'

/** An early step: true once it has answered the request, so that the steps after it do not run. */
export type Check = (request: FastifyRequest, reply: FastifyReply) => boolean

/** A route's hooks of one kind as an array (a route option holds one, several or none). */
function own<T> (given: T | T[] | undefined): T[] {
  return given === undefined ? [] : [given].flat() as T[]
}

/** The checks as one onRequest hook: no hook runner's turn per step. */
function inTurn (checks: Check[]): onRequestHookHandler {
  return function arrive (request, reply, done) {
    for (const check of checks) if (check(request, reply)) return
    done()
  }
}

export interface PipelineOptions {
  /** Whether the server believes a proxy's X-Forwarded-For (TRUST_PROXY): only then is the client's address checked. */
  behindProxy: boolean
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The calling plugin's routes are the API's: they look up the session, meet its defects and keep
     * the journal, and their requests carry those steps' fields. Unknown paths are answered here, as
     * the API's (once: the plugin holds every API base).
     */
    servesApi (): void
  }
  interface FastifyContextConfig {
    /** An admin route: the admin token is checked first (plugins/admin.ts). */
    admin?: boolean
  }
}

const API = Symbol('api-challenges.api')

/** The fields of an API request's steps, each capability's own: on the API's context only. */
const API_FIELDS: Readonly<Record<string, unknown>> = { ...CHALLENGER_FIELDS, ...SESSION_FIELDS, ...DEFECT_FIELDS, ...JOURNAL_FIELDS }

/** @fastify/cors's catch-all OPTIONS route answers as the 404, but is the app's: its requests are given the API's fields first. */
const apiFields: onRequestHookHandler = function apiFields (request, _reply, done) {
  Object.assign(request, API_FIELDS)
  done()
}

async function pipeline (fastify: FastifyInstance, options: PipelineOptions): Promise<void> {
  fastify.decorate('servesApi', function (this: FastifyInstance) {
    (this as unknown as Record<symbol, boolean>)[API] = true
    for (const [name, value] of Object.entries(API_FIELDS)) this.decorateRequest(name, value)
    // Unknown paths come under the API's steps (the echo, the session, the journal of a typo), answered before a body is read.
    this.setNotFoundHandler(notFoundSteps(this) as object, fastify.answerNotFound)
  })
  const metrics = fastify.hasDecorator('countAnswer') ? fastify : null

  // 1, 2: the checks every request meets first, in one hook (and the metrics' clock, where Fastify keeps none).
  const arrivalWith = (checkHeaders: Check): onRequestHookHandler => inTurn([
    ...(metrics?.metricsClock != null ? [metrics.metricsClock] : []),
    checkHeaders,
    ...(options.behindProxy ? [fastify.checkClientAddress] : [])
  ])
  const arrival = arrivalWith(fastify.checkHeaders)
  const notFoundArrival = arrivalWith(fastify.checkNotFoundHeaders)
  // The API's: an over-long X-CHALLENGER is answered by the session step, which may pass challenge 47 with it.
  const apiArrival = arrivalWith(fastify.checkApiHeaders)
  // 3, 4: X-CHALLENGER's session, then the defects it (or grade) brings; for a note request, where the
  // store judges and keeps it in one step (Redis) and no defect meets every request, left to the finish.
  const session = fastify.sessionStep(fastify.meetDefects)
  const noteSession = fastify.defectsEverywhere ? undefined : fastify.deferredSessionStep(fastify.meetDefects)
  // Under a grading base (plugins/grades.ts, registered after this): the base first, then the session and its defects or the base's.
  let baseSession: onRequestHookHandler | undefined
  const gradeBaseSteps = (): onRequestHookHandler[] => {
    baseSession ??= fastify.sessionStep(request => { fastify.meetDefectsUnderBase(request, fastify.baseDefectOf(request)) })
    return [fastify.gradeBaseStep, baseSession]
  }

  fastify.addHook('onRoute', function compose (this: FastifyInstance, route: RouteOptions) {
    // @fastify/cors's catch-all OPTIONS route answers as an unknown path (the only OPTIONS route ending in `*`).
    if ([route.method].flat().includes('OPTIONS') && route.url.endsWith('*')) {
      const steps = notFoundSteps(this)
      Object.assign(route, steps, { onRequest: [apiFields, ...steps.onRequest] })
      return
    }
    const config = route.config ?? {}
    const api = (this as unknown as Record<symbol, boolean>)[API] === true
    const body = route.schema?.body !== undefined
    route.onRequest = [
      api ? apiArrival : arrival,
      // 3, 4: the session and its defects, for the API (under a grading base, the base's first); the session named in the URL too.
      ...(!api ? [] : routeBase(route.url, fastify.prefix) === GRADE_BASE ? gradeBaseSteps() : [body && config.token !== undefined ? noteSession ?? session : session]),
      ...(api && route.url.includes('/:guid') ? [fastify.sessionInUrlStep] : []),
      // 5: the route's own early answer, behind the admin token for an admin route.
      ...(config.admin === true ? [fastify.adminOnly] : []),
      ...own(route.onRequest)
    ]
    // 6: a Content-Type that is no media type is set aside, to be answered after the token.
    if (fastify.setsAside(this, route)) route.preParsing = [fastify.setAside, ...own(route.preParsing)]
    route.preHandler = [
      // 7: the token, before the body's verdict (the reference's order).
      ...(config.token === undefined ? [] : [this.tokenAuth(config.token)]),
      ...own(route.preHandler),
      // 6: the body: read as XML now (where the route reads XML), changed by a defect (the API's), then judged (415, 400).
      ...(body ? [fastify.bodyVerdict(this, api ? fastify.defectBody : undefined)] : [])
    ]
    // The schema's verdict on the body waits for the token's (6).
    if (body) route.attachValidation = true
    // 9: the answer as XML when asked; a defect's payload where a body was written (only the API's requests meet defects).
    const payloadChange = api && body ? fastify.defectPayload : undefined
    route.preSerialization = [
      ...own(route.preSerialization),
      ...(config.xml === undefined && payloadChange === undefined ? [] : [fastify.toXml(config.xml, payloadChange)])
    ]
    // 10: the finish; the operators' probes are left out of the metrics.
    route.onSend = [...own(route.onSend), finish(api ? fastify.commitFor(this, route) : null, config.probe === undefined ? metrics?.countAnswer(route, api) : undefined)]
  })

  /** The last step of every answer: Connection: close, a defect's answer, the session's changes with the journal entry, the metrics. */
  function finish (commit: ReturnType<FastifyInstance['commitFor']> | null, count?: (request: FastifyRequest, reply: FastifyReply) => void): onSendHookHandler {
    return function finish (request, reply, payload, done) {
      fastify.closeIfDraining(request, reply)
      if (commit === null) {
        count?.(request, reply)
        return done(null, payload)
      }
      const sent = fastify.defectAnswer(request, reply, payload)
      const written = commit(request, reply)
      if (written === undefined) {
        count?.(request, reply)
        return done(null, sent)
      }
      written.then(instead => {
        count?.(request, reply)
        done(null, instead ?? sent)
      }, done)
    }
  }

  /** The 404's steps: an API route's, with the method guard's answer as its own. */
  function notFoundSteps (instance: FastifyInstance): { onRequest: onRequestHookHandler[], onSend: onSendHookHandler[] } {
    return {
      onRequest: [notFoundArrival, session, fastify.answerNotFound],
      onSend: [finish(fastify.commitFor(instance, null), metrics?.countAnswer(null, true))]
    }
  }
}

export default fp(pipeline, {
  name: 'pipeline',
  fastify: '5.x',
  dependencies: ['headers', 'client-address', 'session', 'defects', 'bodies', 'auth', 'formats', 'shutdown', 'journal', 'method-guard', 'admin']
})
