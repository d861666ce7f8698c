// Prometheus metrics, for the instructor (registered only with an admin token): a prom-client
// Registry of the app's own (two apps in one process never share one), read by GET /metrics
// (routes/metrics.ts). Answers are counted last in the pipeline's finish (`fastify.countAnswer`,
// plugins/pipeline.ts), so that the duration includes the journal's write; the store's state and the process's own figures are read when
// Prometheus scrapes, the session counts every few seconds in the background.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { performance } from 'node:perf_hooks'
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import { challenges, isPassed } from '../src/domain/challenges/catalogue.js'
import { ClassCounts } from '../src/domain/sessions/class-counts.js'
import { StoreUnavailableError } from '../src/domain/sessions/store.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's metrics, in Prometheus's text format by `metrics.metrics()`. */
    metrics: Registry
    /** The finish's count of an answer to `route` (null: the 404), with its passes and findings where it is the API's (`api`). */
    countAnswer (route: RouteOptions | null, api: boolean): (request: FastifyRequest, reply: FastifyReply) => void
    /** The arrival's clock, in a host whose Fastify does not time requests; null where it does. */
    metricsClock: ((request: FastifyRequest) => boolean) | null
  }
  interface FastifyRequest {
    /** performance.now() when the metrics' clock started, in a host whose Fastify does not time requests. */
    metricsStart: number
  }
}

/** The route label of requests to no route (404s): one label for every unknown path. */
export const UNMATCHED = 'unmatched'
/** The window of api_challenges_sessions_active, as GET /admin/summary's. */
const ACTIVE_MS = 10 * 60 * 1000
/** How often the session gauges are counted, in the background. */
export const COUNTS_EVERY_MS = 5000
/**
 * The upper bounds, in seconds, of the duration histogram's buckets: this service answers in well
 * under a millisecond, so they start at a tenth of one; a request slower than 2.5 s is only counted.
 */
export const DURATION_BUCKETS: readonly number[] = Object.freeze([0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5])

async function metrics (fastify: FastifyInstance): Promise<void> {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const store = fastify.sessions

  const requests = new Counter({
    name: 'api_challenges_requests_total',
    help: 'Requests answered, by route (as registered, or "unmatched"), method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry]
  })
  const durations = new Histogram({
    name: 'api_challenges_request_duration_seconds',
    help: 'Time from the request\'s arrival to its answer being sent',
    buckets: [...DURATION_BUCKETS],
    registers: [registry]
  })
  const passes = new Counter({
    name: 'api_challenges_challenge_passes_total',
    help: 'Challenges passed, by challenge id (a session passes each once)',
    labelNames: ['challenge'] as const,
    registers: [registry]
  })
  // Every challenge from 0: a series that appeared only at its first pass would hide that pass from rate().
  for (const challenge of challenges) passes.inc({ challenge: String(challenge.id) }, 0)
  const findings = new Counter({
    name: 'api_challenges_hunt_findings_total',
    help: 'Bug hunts\' findings, by verdict: found (a hidden defect) or correct (a false alarm)',
    labelNames: ['verdict'] as const,
    registers: [registry]
  })
  findings.inc({ verdict: 'found' }, 0)
  findings.inc({ verdict: 'correct' }, 0)
  const gradeRuns = new Counter({ name: 'api_challenges_grade_runs_total', help: 'Grading runs started (POST /grades)', registers: [registry] })
  const gradeResults = new Counter({
    name: 'api_challenges_grade_results_total',
    help: 'Grading runs\' results reported, by outcome: caught or survived (a defect base), correct-passed or correct-failed (the correct base)',
    labelNames: ['outcome'] as const,
    registers: [registry]
  })
  for (const outcome of ['caught', 'survived', 'correct-passed', 'correct-failed']) gradeResults.inc({ outcome }, 0)
  const storeErrors = new Counter({
    name: 'api_challenges_store_errors_total',
    help: 'Requests answered 503 because the session store failed or could not be reached',
    registers: [registry]
  })
  /* eslint-disable no-new -- prom-client keeps each metric in the registry given */
  new Gauge({
    name: 'api_challenges_store_up',
    help: '1 when the session store can be reached, else 0',
    registers: [registry],
    collect () { this.set(store.available() ? 1 : 0) }
  })
  // The session gauges read the last background count (src/domain/sessions/class-counts.ts): a
  // scrape never waits on the store, so it answers at once while Redis is in trouble.
  const counts = new ClassCounts(async () => await store.counts(ACTIVE_MS), { everyMs: COUNTS_EVERY_MS })
  fastify.addHook('onReady', async () => { counts.start() })
  fastify.addHook('onClose', async () => { counts.stop() })
  new Gauge({
    name: 'api_challenges_sessions_live',
    help: 'Live sessions (the single-player session aside), as of the last count (see api_challenges_store_counts_age_seconds); NaN before the first',
    registers: [registry],
    collect () { this.set(counts.read().live) }
  })
  new Gauge({
    name: 'api_challenges_sessions_active',
    help: 'Live sessions with a request in the last 10 minutes, as of the last count; NaN before the first',
    registers: [registry],
    collect () { this.set(counts.read().active) }
  })
  new Gauge({
    name: 'api_challenges_store_counts_age_seconds',
    help: `Seconds since the session counts were made (a new count every ${COUNTS_EVERY_MS / 1000} s; older: the store is slow or unreachable); NaN before the first`,
    registers: [registry],
    collect () { this.set(counts.read().ageSeconds) }
  })
  /* eslint-enable no-new */
  fastify.decorate('metrics', registry)
  fastify.decorate('countGrading', (event: Parameters<FastifyInstance['countGrading']>[0]) => {
    if (event === 'run') gradeRuns.inc()
    else gradeResults.inc({ outcome: event })
  })

  // Fastify times every request (reply.elapsedTime) when it has a logger, as npm start's server
  // does; a host made without one (Fastify()) gets the metrics' own clock. (Fastify's null logger
  // has no level.)
  const fastifyTimes = typeof fastify.log.level === 'string'
  if (fastifyTimes) fastify.decorate('metricsClock', null)
  else {
    fastify.decorateRequest('metricsStart', 0)
    fastify.decorate('metricsClock', function startClock (request: FastifyRequest): boolean {
      request.metricsStart = performance.now()
      return false
    })
  }
  // Requests to no route (404s, @fastify/cors's catch-all OPTIONS route among them) under one label.
  fastify.decorate('countAnswer', function (route: RouteOptions | null, api: boolean) {
    const label = route === null ? UNMATCHED : route.url
    return function countAnswer (request: FastifyRequest, reply: FastifyReply): void {
      requests.inc({ route: label, method: request.method, status: String(reply.statusCode) })
      durations.observe((fastifyTimes ? reply.elapsedTime : performance.now() - request.metricsStart) / 1000)
      // Only the API's requests pass challenges and report findings.
      if (!api) return
      for (const challenge of challenges) {
        if (isPassed(request.passedBits, challenge)) passes.inc({ challenge: String(challenge.id) })
      }
      if (request.huntFinding !== null) findings.inc({ verdict: request.huntFinding })
    }
  })
  fastify.addHook('onError', function countStoreError (_request, _reply, error, done) {
    if (error instanceof StoreUnavailableError) storeErrors.inc()
    done()
  })
}

export default fp(metrics, { name: 'metrics', fastify: '5.x', dependencies: ['challenger-registry', 'session', 'defects'] })
