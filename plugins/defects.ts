// Deliberate defects (src/domain/defects/catalogue.ts): the service's own, for `grade` (the
// `defects` option), or a hunt's, hidden in its session. The request's defects are looked up once,
// when its session is known; each phase below runs them, and does nothing when there are none.
// A defect that changed the request or its answer is noted in `request.defectHit`: the journal
// keeps it, and a finding on that entry reveals it.
import type { FastifyInstance, FastifyRequest, preHandlerHookHandler, preSerializationHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { routeResource } from '../src/domain/challenges/catalogue.js'
import { defectById, type Asked, type Defect, type DefectContext } from '../src/domain/defects/catalogue.js'
import type { Session } from '../src/domain/sessions/store.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The defects this request meets: the service's, else its session's hunt's; none most of the time (null before its session is known). */
    defects: readonly Defect[] | null
    /** The defect that changed this request or its answer, if one did. */
    defectHit: string | null
    /** On a hunt's finding: whether it found a defect, or the answer was correct (for the metrics). */
    huntFinding: 'found' | 'correct' | null
  }
}

export interface DefectsOptions {
  defects?: string[] | undefined
  username: string
  password: string
  noteMaxLength: number
}

const NONE: readonly Defect[] = Object.freeze([])

/** A route's hooks of one kind, as an array (a route option may hold one, several or none). */
function hooks<T> (given: T | T[] | undefined): T[] {
  return given === undefined ? [] : [given].flat() as T[]
}

/** The defects of a hunt's ids, in the catalogue's order. */
function huntDefects (session: Session | null): readonly Defect[] {
  const hidden = session?.hunt?.hidden
  if (hidden === undefined) return NONE
  return hidden.map(defectById).filter(defect => defect !== undefined)
}

// The request as the defects see it, made once for a request that meets some.
const askedOf = new WeakMap<FastifyRequest, Asked>()

async function defects (fastify: FastifyInstance, options: DefectsOptions): Promise<void> {
  const everywhere = options.defects === undefined ? NONE : options.defects.map(id => defectById(id) as Defect)
  const context: DefectContext = {
    credentials: `Basic ${Buffer.from(`${options.username}:${options.password}`).toString('base64')}`,
    noteMaxLength: options.noteMaxLength
  }
  const prefix = fastify.prefix
  fastify.decorateRequest('defects', null)
  fastify.decorateRequest('defectHit', null)
  fastify.decorateRequest('huntFinding', null)

  fastify.addHook('onRequest', function meetDefects (request, _reply, done) {
    const met = everywhere.length > 0 ? everywhere : huntDefects(request.session)
    request.defects = met
    if (met.length > 0) {
      const asked: Asked = {
        method: request.method,
        resource: routeResource(request.routeOptions.url ?? '', prefix),
        headers: request.headers,
        body: undefined,
        session: request.session
      }
      askedOf.set(request, asked)
      for (const defect of met) if (defect.request?.(asked, context) === true) request.defectHit = defect.id
    }
    done()
  })

  const changeBody: preHandlerHookHandler = function (request, _reply, done) {
    const met = request.defects
    if (met !== null && met.length > 0) {
      const asked = askedOf.get(request) as Asked
      asked.body = request.body
      for (const defect of met) if (defect.body?.(asked, context) === true) request.defectHit = defect.id
      request.body = asked.body
    }
    done()
  }
  const changePayload: preSerializationHookHandler<unknown> = function (request, _reply, payload, done) {
    const met = request.defects
    if (met === null || met.length === 0) return done(null, payload)
    const asked = askedOf.get(request) as Asked
    let sent = payload
    for (const defect of met) {
      const changed = defect.payload?.(asked, sent, context)
      if (changed !== undefined) {
        sent = changed
        request.defectHit = defect.id
      }
    }
    done(null, sent)
  }
  // A body, and the payload that answers it, exist only where a route takes a body: their phases run there alone.
  fastify.addHook('onRoute', route => {
    if (route.schema?.body === undefined) return
    route.preHandler = [changeBody, ...hooks(route.preHandler)]
    route.preSerialization = [...hooks(route.preSerialization), changePayload]
  })

  fastify.addHook('onSend', function changeAnswer (request, reply, payload, done) {
    const met = request.defects
    if (met === null || met.length === 0) return done(null, payload)
    const asked = askedOf.get(request) as Asked
    let sent = payload
    for (const defect of met) {
      const outcome = defect.answer?.(asked, reply, sent)
      if (outcome?.changed === true) {
        request.defectHit = defect.id
        if (outcome.body !== undefined) sent = outcome.body
      }
    }
    done(null, sent)
  })
}

export default fp(defects, {
  name: 'defects',
  fastify: '5.x',
  dependencies: ['session']
})
