// Builds the service as `npm start` does (same Fastify options), silent, for one test,
// and closes it on teardown.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import type { Test } from 'tap'
import type { ApiChallengesOptions } from '../src/app.js'
import { challenges, isPassed } from '../src/domain/challenges/catalogue.js'
import { createServer } from '../src/server.js'
import { MemoryStore } from '../src/domain/sessions/memory-store.js'
import type { SessionStore } from '../src/domain/sessions/store.js'

const stores = new WeakMap<FastifyInstance, SessionStore>()

/**
 * The app, with a store the test can look into (`passed`, `storeOf`): the one `options` brings, or
 * an in-memory store made from its session settings, as the registry would make it.
 */
export async function build (t: Test, options: ApiChallengesOptions = {}): Promise<FastifyInstance> {
  const store = options.store ?? new MemoryStore({ idleMs: options.sessionIdleMs, maxSessions: options.maxSessions })
  const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { ...options, store } })
  stores.set(app, store)
  t.teardown(() => app.close())
  await app.ready()
  return app
}

export interface Session {
  guid: string
  token: string
}

/** A new session with its token, the way a learner gets them (at the API's root, or under `base`). */
export async function newSession (app: FastifyInstance, base = ''): Promise<Session> {
  const created = await app.inject({ method: 'POST', url: `${base}/challenger` })
  const guid = created.headers['x-challenger'] as string
  const issued = await app.inject({
    method: 'POST',
    url: `${base}/secret/token`,
    headers: { 'x-challenger': guid, authorization: basic('admin', 'password') }
  })
  return { guid, token: issued.headers['x-auth-token'] as string }
}

export function basic (username: string, password: string): string {
  return 'Basic ' + Buffer.from(`${username}:${password}`).toString('base64')
}

/** The ids of the challenges the session has passed, as GET /challenges lists them. */
export async function passed (app: FastifyInstance, guid: string): Promise<number[]> {
  // Read through the registry, so that looking does not pass challenge 02.
  const progress = (await storeOf(app).get(guid))?.progress ?? 0
  return challenges.filter(c => isPassed(progress, c)).map(c => c.id)
}

export function errorMessages (res: LightMyRequestResponse): unknown {
  return res.json().errorMessages
}

export function storeOf (app: FastifyInstance): SessionStore {
  return stores.get(app) as SessionStore
}

/** The API's two bases: the service's root, and /api as the reference's 2026 tutorials send it. */
export const BASES = ['', '/api'] as const

/** A base as a test's name says it. */
export function baseName (base: string): string {
  return base === '' ? 'at the root' : `under ${base}`
}
