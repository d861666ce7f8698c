// Prometheus metrics, for the instructor (registered only with an admin token): a prom-client
// Registry of the app's own (two apps in one process never share one), read by GET /metrics
// (routes/metrics.ts). What a request costs is kept small: each route counts its answers in plain
// numbers (an array of statuses per method, made when the route is), copied into prom-client's
// counter only when Prometheus scrapes; the duration goes straight into an unlabelled histogram.
// Sessions, the store's state and the process's own figures are read at scrape time.
import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import { challenges, isPassed } from '../src/domain/catalogue.js'
import { StoreUnavailableError } from '../src/domain/store.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's metrics, in Prometheus's text format by `metrics.metrics()`. */
    metrics: Registry
  }
}

/** The route label of requests to no route (404s). */
export const UNMATCHED = 'unmatched'
/** The window of api_challenges_sessions_active. */
const ACTIVE_MS = 10 * 60 * 1000

/** Answers of one route: for each method, a count per status (100 to 599). */
class RouteCounts {
  readonly byMethod = new Map<string, Float64Array>()

  add (method: string, status: number): void {
    let counts = this.byMethod.get(method)
    if (counts === undefined) {
      counts = new Float64Array(500)
      this.byMethod.set(method, counts)
    }
    // Node sends only statuses from 100 to 999; Fastify refuses to send one above 599.
    const at = status - 100
    counts[at] = (counts[at] as number) + 1
  }
}

async function metrics (fastify: FastifyInstance): Promise<void> {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const store = fastify.challengers
  const routes = new Map<string, RouteCounts>()

  /* eslint-disable no-new -- prom-client keeps each metric in the registry given */
  new Counter({
    name: 'api_challenges_requests_total',
    help: 'Requests answered, by route (as registered, or "unmatched"), method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
    collect () {
      this.reset()
      for (const [route, counts] of routes) {
        for (const [method, statuses] of counts.byMethod) {
          statuses.forEach((count, at) => { if (count > 0) this.inc({ route, method, status: String(at + 100) }, count) })
        }
      }
    }
  })
  const duration = new Histogram({
    name: 'api_challenges_request_duration_seconds',
    help: 'Time from the request\'s arrival to the end of its answer',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry]
  })
  const passes = new Counter({
    name: 'api_challenges_challenge_passes_total',
    help: 'Challenges passed, by challenge id (a session passes each once)',
    labelNames: ['challenge'] as const,
    registers: [registry]
  })
  const storeErrors = new Counter({
    name: 'api_challenges_store_errors_total',
    help: 'Requests answered 503 because the session store failed or could not be reached',
    registers: [registry]
  })
  const counts = store.counts?.bind(store)
  const bySession = counts === undefined ? undefined : async () => await counts(ACTIVE_MS)
  new Gauge({
    name: 'api_challenges_store_up',
    help: '1 when the session store can be reached, else 0',
    registers: [registry],
    collect () { this.set(store.available() ? 1 : 0) }
  })
  new Gauge({
    name: 'api_challenges_sessions_live',
    help: 'Live sessions (pinned ones aside)',
    registers: [registry],
    async collect () {
      // A store that cannot count, or cannot be reached now, gives NaN (no figure) rather than failing the scrape.
      const sessions = await bySession?.().catch(() => undefined)
      this.set(sessions === undefined ? NaN : sessions.live)
    }
  })
  new Gauge({
    name: 'api_challenges_sessions_active',
    help: 'Live sessions with a request in the last 10 minutes',
    registers: [registry],
    async collect () {
      const sessions = await bySession?.().catch(() => undefined)
      this.set(sessions === undefined ? NaN : sessions.active)
    }
  })
  /* eslint-enable no-new */
  fastify.decorate('metrics', registry)

  // The challenge ids by bit, for the passes' label.
  const ids = new Map(challenges.map(c => [c.bit, String(c.id)]))
  const count = (answers: RouteCounts, request: FastifyRequest, reply: FastifyReply): void => {
    answers.add(request.method, reply.statusCode)
    duration.observe(reply.elapsedTime / 1000)
    const bits = request.passedBits
    if (bits !== 0) {
      for (const challenge of challenges) {
        if (isPassed(bits, challenge)) passes.inc({ challenge: ids.get(challenge.bit) as string })
      }
    }
  }
  const countsOf = (route: string): RouteCounts => {
    let counts = routes.get(route)
    if (counts === undefined) {
      counts = new RouteCounts()
      routes.set(route, counts)
    }
    return counts
  }

  // Each route counts into its own numbers, found once when it is made.
  fastify.addHook('onRoute', route => {
    const answers = countsOf(route.url)
    const hook: onResponseHookHandler = function countAnswer (request, reply, done) {
      count(answers, request, reply)
      done()
    }
    route.onResponse = [...[route.onResponse ?? []].flat(), hook]
  })
  // Requests to no route have no route hook: one hook for them.
  const unmatched = countsOf(UNMATCHED)
  fastify.addHook('onResponse', function countUnmatched (request, reply, done) {
    if (request.is404) count(unmatched, request, reply)
    done()
  })
  fastify.addHook('onError', function countStoreError (_request, _reply, error, done) {
    if (error instanceof StoreUnavailableError) storeErrors.inc()
    done()
  })
}

export default fp(metrics, { name: 'metrics', fastify: '5.x', dependencies: ['challenger-registry', 'session'] })
