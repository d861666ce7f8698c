// Prometheus metrics, for the instructor (registered only with an admin token): a prom-client
// Registry of the app's own (two apps in one process never share one), read by GET /metrics
// (routes/metrics.ts).
//
// What a request costs is kept to a few additions on plain numbers: each route gets its own
// counts when it is registered (onRoute, as plugins/journal.ts does), and its last onSend hook adds
// the answer's status to them, its duration to an array of buckets and its passes to an array by
// challenge; no label is hashed, no object or promise is made per request. onSend rather than
// onResponse: every route already runs onSend hooks (plugins/shutdown.ts), and one more is one more
// call, where Fastify's first onResponse hook adds a hook runner to every request (measured: about
// 3% of the heartbeat's throughput). prom-client reads those
// numbers only when Prometheus scrapes: the counters' collect() copies them in, and the duration
// histogram is an object of this module that hands the registry what prom-client's own Histogram
// would. Sessions, the store's state and the process's own figures are read at scrape time too.
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { performance } from 'node:perf_hooks'
import { collectDefaultMetrics, Counter, Gauge, Registry, type Metric } from 'prom-client'
import { challenges } from '../src/domain/challenges/catalogue.js'
import { StoreUnavailableError } from '../src/domain/sessions/store.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's metrics, in Prometheus's text format by `metrics.metrics()`. */
    metrics: Registry
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
/**
 * The upper bounds, in seconds, of the duration histogram's buckets: this service answers in well
 * under a millisecond, so they start at a tenth of one; a request slower than 2.5 s is only counted.
 */
export const DURATION_BUCKETS: readonly number[] = Object.freeze([0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5])
const BOUNDS = DURATION_BUCKETS.length
/** Node sends statuses from 100 to 999, and Fastify refuses to set one above 599. */
const LOWEST_STATUS = 100
const STATUSES = 500

/** What one route (its URL as registered, whatever the method) has answered. */
class RouteCounts {
  /** By method: a count per status, from 100 at 0; made when the method is first answered. */
  readonly byMethod = new Map<string, Float64Array>()

  add (method: string, status: number): void {
    let counts = this.byMethod.get(method)
    if (counts === undefined) {
      counts = new Float64Array(STATUSES)
      this.byMethod.set(method, counts)
    }
    const at = status - LOWEST_STATUS
    counts[at] = (counts[at] as number) + 1
  }
}

/** One line of a metric, as prom-client's registry prints it. */
interface Sample { metricName: string, labels: Record<string, string>, value: number }

/**
 * The request durations, as a Prometheus histogram. prom-client's Histogram works out a key from
 * the labels of every observation; this one adds to an array, and hands the registry the values its
 * Histogram would only when it is scraped (the registry calls get() on each metric it holds).
 */
export class DurationHistogram {
  readonly name = 'api_challenges_request_duration_seconds'
  readonly help = 'Time from the request\'s arrival to its answer being sent'
  readonly type = 'histogram'
  readonly aggregator = 'sum'
  /** Answers per bucket, the last one past DURATION_BUCKETS's last bound. */
  readonly #counts = new Float64Array(BOUNDS + 1)
  #sum = 0

  observe (seconds: number): void {
    let bucket = 0
    while (bucket < BOUNDS && seconds > (DURATION_BUCKETS[bucket] as number)) bucket++
    this.#counts[bucket] = (this.#counts[bucket] as number) + 1
    this.#sum += seconds
  }

  async get (): Promise<{ name: string, help: string, type: string, aggregator: string, values: Sample[] }> {
    const values: Sample[] = []
    // Prometheus's buckets are cumulative: each counts every answer up to its bound.
    let count = 0
    this.#counts.forEach((answers, bucket) => {
      count += answers
      values.push({ metricName: `${this.name}_bucket`, labels: { le: bucket < BOUNDS ? String(DURATION_BUCKETS[bucket]) : '+Inf' }, value: count })
    })
    values.push({ metricName: `${this.name}_sum`, labels: {}, value: this.#sum })
    values.push({ metricName: `${this.name}_count`, labels: {}, value: count })
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values }
  }
}

async function metrics (fastify: FastifyInstance): Promise<void> {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const store = fastify.sessions
  const routes = new Map<string, RouteCounts>()
  const durations = new DurationHistogram()
  /** Passes by progress bit (0 to 30, see the catalogue). */
  const passes = new Float64Array(31)
  let storeErrors = 0

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
          statuses.forEach((count, at) => { if (count > 0) this.inc({ route, method, status: String(at + LOWEST_STATUS) }, count) })
        }
      }
    }
  })
  // Not one of prom-client's classes, but it answers the registry as they do.
  registry.registerMetric(durations as unknown as Metric)
  new Counter({
    name: 'api_challenges_challenge_passes_total',
    help: 'Challenges passed, by challenge id (a session passes each once)',
    labelNames: ['challenge'] as const,
    registers: [registry],
    collect () {
      // Every challenge, 0 until someone passes it: a series that appeared only at its first pass
      // would hide that pass from rate().
      this.reset()
      for (const challenge of challenges) this.inc({ challenge: String(challenge.id) }, passes[challenge.bit] as number)
    }
  })
  new Counter({
    name: 'api_challenges_store_errors_total',
    help: 'Requests answered 503 because the session store failed or could not be reached',
    registers: [registry],
    collect () {
      this.reset()
      this.inc(storeErrors)
    }
  })
  new Gauge({
    name: 'api_challenges_store_up',
    help: '1 when the session store can be reached, else 0',
    registers: [registry],
    collect () { this.set(store.available() ? 1 : 0) }
  })
  // Both session gauges from one count per scrape: the registry collects its metrics side by side.
  const countSessions = store.counts?.bind(store)
  let counting: Promise<{ live: number, active: number } | undefined> | undefined
  const sessions = async (): Promise<{ live: number, active: number } | undefined> => {
    if (countSessions === undefined) return undefined
    if (counting === undefined) {
      // A store that cannot be reached now gives no figure (NaN) rather than failing the scrape.
      counting = (async () => await countSessions(ACTIVE_MS))().catch(() => undefined).finally(() => { counting = undefined })
    }
    return await counting
  }
  new Gauge({
    name: 'api_challenges_sessions_live',
    help: 'Live sessions (the single-player session aside); NaN when the store cannot count them',
    registers: [registry],
    async collect () { this.set((await sessions())?.live ?? NaN) }
  })
  new Gauge({
    name: 'api_challenges_sessions_active',
    help: 'Live sessions with a request in the last 10 minutes; NaN when the store cannot count them',
    registers: [registry],
    async collect () { this.set((await sessions())?.active ?? NaN) }
  })
  /* eslint-enable no-new */
  fastify.decorate('metrics', registry)

  // Fastify times every request (reply.elapsedTime, from before the first onRequest hook) when it
  // has a logger, as npm start's server does; a host made without one (Fastify()) gets the metrics'
  // own clock, from this plugin's onRequest hook. (Fastify's null logger has no level.)
  const fastifyTimes = typeof fastify.log.level === 'string'
  if (!fastifyTimes) {
    fastify.decorateRequest('metricsStart', 0)
    fastify.addHook('onRequest', function startClock (request, _reply, done) {
      request.metricsStart = performance.now()
      done()
    })
  }
  const count = (answers: RouteCounts, request: FastifyRequest, reply: FastifyReply): void => {
    answers.add(request.method, reply.statusCode)
    durations.observe((fastifyTimes ? reply.elapsedTime : performance.now() - request.metricsStart) / 1000)
    let bits = request.passedBits
    while (bits !== 0) {
      const bit = 31 - Math.clz32(bits)
      passes[bit] = (passes[bit] as number) + 1
      bits ^= 1 << bit
    }
  }
  const countsOf = (url: string): RouteCounts => {
    let counts = routes.get(url)
    if (counts === undefined) {
      counts = new RouteCounts()
      routes.set(url, counts)
    }
    return counts
  }

  // Each route counts into its own numbers, found once, when it is registered. The hook comes
  // after the route's other onSend hooks (those added by plugins registered before this one, as the
  // journal's, whose write to Redis is part of the answer's time).
  fastify.addHook('onRoute', route => {
    const answers = countsOf(route.url)
    const hook: onSendHookHandler = function countAnswer (request, reply, payload, done) {
      count(answers, request, reply)
      done(null, payload)
    }
    route.onSend = [...[route.onSend ?? []].flat(), hook]
  })
  // Requests to no route have no route hook: one hook for them. @fastify/cors's catch-all OPTIONS
  // route, registered before this plugin, is the method guard's 404 too, and is counted as one.
  const unmatched = countsOf(UNMATCHED)
  fastify.addHook('onSend', function countUnmatched (request, reply, payload, done) {
    if (request.unmatched) count(unmatched, request, reply)
    done(null, payload)
  })
  fastify.addHook('onError', function countStoreError (_request, _reply, error, done) {
    if (error instanceof StoreUnavailableError) storeErrors++
    done()
  })
}

export default fp(metrics, { name: 'metrics', fastify: '5.x', dependencies: ['challenger-registry', 'session', 'method-guard'] })
