// The session decorator: `request.challenger` is the session named by X-CHALLENGER (or null),
// looked up once per request, and `request.passChallenge(trigger)` records progress on it.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { bitFor } from '../src/catalogue.js'
import type { ChallengerRecord } from '../src/store.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The session named by X-CHALLENGER; null when the header is absent or names no session. */
    challenger: ChallengerRecord | null
    /**
     * Records the challenge that `trigger` passes (see src/catalogue.ts) on this request's session.
     * Does nothing without a session or when the trigger passes no challenge.
     */
    passChallenge (trigger: string): Promise<void>
  }
}

async function session (fastify: FastifyInstance): Promise<void> {
  fastify.decorateRequest('challenger', null)

  fastify.decorateRequest('passChallenge', async function (this: FastifyRequest, trigger: string) {
    const bit = bitFor(trigger)
    if (bit !== 0 && this.challenger !== null) await this.server.challengers.pass(this.challenger.guid, bit)
  })

  fastify.addHook('onRequest', function findChallenger (request, _reply, done) {
    const guid = request.headers['x-challenger']
    if (typeof guid !== 'string' || guid === '') {
      done()
      return
    }
    fastify.challengers.get(guid).then((record) => {
      request.challenger = record ?? null
      done()
    }, done)
  })
}

export default fp(session, {
  name: 'session',
  fastify: '5.x',
  dependencies: ['challenger-registry']
})
