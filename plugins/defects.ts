// Deliberate defects (src/domain/defects/catalogue.ts): the service's own, for `grade` (the
// `defects` option), or a hunt's, hidden in its session. The pipeline (plugins/pipeline.ts) meets
// them with the session, on the API's routes and the 404; each later phase is a call inside a step
// those routes have anyway (the body's verdict, the payload's format, the finish), and does nothing
// when the request met none. A defect that changed the request or its answer is noted in
// `request.defectHit`: the journal keeps it, and a finding on that entry reveals it.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { routeResource } from '../src/domain/challenges/catalogue.js'
import { defectById, type Asked, type Defect, type DefectContext } from '../src/domain/defects/catalogue.js'
import type { Session } from '../src/domain/sessions/store.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Whether the service's own defects (the `defects` option) meet every request, whatever its session. */
    defectsEverywhere: boolean
    /** The session step's sequel: the defects the request meets, and their request phase (its headers). */
    meetDefects (request: FastifyRequest): void
    /** The same under a grading base (plugins/grades.ts): without a session's defects, the base's `base` (none for the correct base). */
    meetDefectsUnderBase (request: FastifyRequest, base: string | undefined): void
    /** The body's phase, once the token has passed and before the body is judged. */
    defectBody (request: FastifyRequest): void
    /** The payload's phase, in the format step of the routes that take a body: the payload to serialize. */
    defectPayload (request: FastifyRequest, payload: unknown): unknown
    /** The answer's phase, in the finish: its status and headers, and the body to send. */
    defectAnswer (request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown
  }
  interface FastifyRequest {
    /** The defects this request meets: the service's, else its session's (a hunt's, or a grading base's); null for none (most of the time). */
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

/** What the defects keep on an API request (the API's and the 404's requests carry them: plugins/pipeline.ts). */
export const DEFECT_FIELDS = { defects: null, defectHit: null, huntFinding: null }

const NONE: readonly Defect[] = Object.freeze([])

/** The one defect of each grading base, made once. */
const gradedOnes = new Map<string, readonly Defect[]>()

/** The defects a session carries: a hunt's hidden ones, else a grading base's one; a correct session pays one lookup. */
function sessionDefects (session: Session | null): readonly Defect[] {
  const hidden = session?.hunt?.hidden
  if (hidden === undefined) return session?.graded === undefined ? NONE : gradedDefects(session.graded)
  return hidden.map(defectById).filter(defect => defect !== undefined)
}

function gradedDefects (id: string): readonly Defect[] {
  let met = gradedOnes.get(id)
  if (met === undefined) {
    const defect = defectById(id)
    met = Object.freeze(defect === undefined ? [] : [defect])
    gradedOnes.set(id, met)
  }
  return met
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
  fastify.decorate('defectsEverywhere', everywhere.length > 0)

  /** The defects `met` are this request's: noted, and their request phase run. */
  const meet = (request: FastifyRequest, met: readonly Defect[]): void => {
    if (met.length === 0) return
    request.defects = met
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

  fastify.decorate('meetDefects', function meetDefects (request: FastifyRequest): void {
    meet(request, everywhere.length > 0 ? everywhere : sessionDefects(request.session))
  })

  fastify.decorate('meetDefectsUnderBase', function meetDefectsUnderBase (request: FastifyRequest, base: string | undefined): void {
    const met = everywhere.length > 0 ? everywhere : sessionDefects(request.session)
    meet(request, met.length === 0 && base !== undefined ? gradedDefects(base) : met)
  })

  fastify.decorate('defectBody', function defectBody (request: FastifyRequest): void {
    const met = request.defects
    if (met === null) return
    const asked = askedOf.get(request) as Asked
    asked.body = request.body
    for (const defect of met) if (defect.body?.(asked, context) === true) request.defectHit = defect.id
    request.body = asked.body
  })

  fastify.decorate('defectPayload', function defectPayload (request: FastifyRequest, payload: unknown): unknown {
    const met = request.defects
    if (met === null) return payload
    const asked = askedOf.get(request) as Asked
    let sent = payload
    for (const defect of met) {
      const changed = defect.payload?.(asked, sent, context)
      if (changed !== undefined) {
        sent = changed
        request.defectHit = defect.id
      }
    }
    return sent
  })

  fastify.decorate('defectAnswer', function defectAnswer (request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
    const met = request.defects
    if (met === null) return payload
    const asked = askedOf.get(request) as Asked
    let sent = payload
    for (const defect of met) {
      const outcome = defect.answer?.(asked, reply, sent)
      if (outcome?.changed === true) {
        request.defectHit = defect.id
        if (outcome.body !== undefined) sent = outcome.body
      }
    }
    return sent
  })
}

export default fp(defects, {
  name: 'defects',
  fastify: '5.x',
  dependencies: ['session']
})
