// The session decorator: `request.challenger` is the session named by X-CHALLENGER (or null),
// looked up once per request, and `request.pass(bit)` records progress on it.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { ChallengerRecord } from '../src/domain/store.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route works without its session: a store that cannot be reached is no error there. */
    sessionOptional?: boolean
  }
  interface FastifyRequest {
    /** The session named by X-CHALLENGER; null when the header is absent or names no session. */
    challenger: ChallengerRecord | null
    /**
     * Records a challenge on this request's session: `bit` is the catalogue's `bitFor(trigger)`,
     * looked up when the route is registered. Does nothing without a session or for bit 0.
     */
    pass (bit: number): Promise<void>
  }
}

async function session (fastify: FastifyInstance): Promise<void> {
  fastify.decorateRequest('challenger', null)

  fastify.decorateRequest('pass', async function (this: FastifyRequest, bit: number) {
    // Already passed (as far as this request saw): nothing to write.
    if (bit !== 0 && this.challenger !== null && (this.challenger.progress & bit) === 0) {
      await this.server.challengers.pass(this.challenger.guid, bit)
    }
  })

  fastify.addHook('onRequest', function findChallenger (request, _reply, done) {
    // In single-player mode one session answers for everyone, whatever the header says.
    const guid = fastify.singlePlayerGuid ?? request.headers['x-challenger']
    if (typeof guid !== 'string' || guid === '') {
      done()
      return
    }
    // Session ids are issued in lowercase; the same UUID in capitals names the same session.
    const looked = fastify.challengers.get(guid.toLowerCase())
    // Multi-player lookups take one promise hop; single-player ones may make the session first.
    const found = fastify.singlePlayerGuid === null ? looked : looked.then(record => record ?? fastify.ensureSinglePlayer())
    found.then((record) => {
      request.challenger = record ?? null
      done()
    }, (error: Error & { statusCode?: number }) => {
      // A route that only tracks progress (the heartbeat) answers without its session when the
      // store is away (503); every other route, and every other error, is reported.
      if (error.statusCode === 503 && request.routeOptions.config.sessionOptional === true) done()
      else done(error)
    })
  })
}

export default fp(session, {
  name: 'session',
  fastify: '5.x',
  dependencies: ['challenger-registry']
})
