#!/usr/bin/env node
// The process: environment → options, a Fastify server with the service registered, listen,
// and a graceful close on SIGINT/SIGTERM. Nothing else starts a server.
import closeWithGrace from 'close-with-grace'
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyLoggerOptions, type FastifyReply, type FastifyRequest } from 'fastify'
import { realpathSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { performance } from 'node:perf_hooks'
import { pathToFileURL } from 'node:url'
import pinoPretty from 'pino-pretty'
import QRCode from 'qrcode'
import app from './app.js'
import { configFromEnv, ConfigError, serverDefaults, SETTINGS, type ServerConfig, type TrustProxy } from './domain/config/config.js'
import { learnerUrls, localNetworks, loopbackOnly } from './domain/http/addresses.js'
import { writeTokenFile } from './domain/config/token-file.js'
import { trustWarning } from './domain/config/trust-proxy.js'
import { limitedServer, type ConnectionLimits } from './domain/http/connection-table.js'
import { CLASS_PIPELINING_OFFENCES } from './domain/config/settings.js'
import { defaultMaxConnections, openFileLimit } from './domain/http/connections.js'
import { misspeltSettings } from './domain/config/misspelt.js'
import { defaults as appDefaults, resolveOptions } from './domain/config/options.js'
import { sentinelsAddress } from './domain/sessions/redis/connection.js'
import type { SessionStore } from './domain/sessions/store.js'
import { createStore } from './domain/sessions/stores.js'
import { clientErrorHandler, frameworkErrors, MAX_HEADERS, screened, supportEveryMethod } from './server-options.js'

/** At debug and trace, one line per request once it is answered (Fastify's own two lines say it twice). */
export class OneLinePerRequest extends LogController {
  override incomingRequest (): void {}

  override requestCompleted (error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error != null) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored')
    else reply.log.debug({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed')
  }
}

/** How often Node looks for requests past their timeouts: its default, 30 s, would stretch a 10 s timeout to 40. */
export function connectionsCheckingInterval (headersTimeout: number, requestTimeout: number): number {
  return Math.max(10, Math.min(1_000, Math.floor(Math.min(headersTimeout, requestTimeout) / 10)))
}

/** Fastify's trustProxy for TRUST_PROXY; Fastify 5.12 ignores a bare hop count, so `n` is made a function as proxy-addr made it. */
export function trustProxyOption (trust: TrustProxy): false | string | ((address: string, hop: number) => boolean) {
  if (typeof trust !== 'number') return trust
  return (_address, hop) => hop < trust
}

/** Fastify's logger options for `config`: JSON lines at its level, or pino-pretty's for a person at a terminal. */
export function loggerOptions (config: Pick<ServerConfig, 'logLevel' | 'prettyLogs'>): FastifyLoggerOptions & { stream?: NodeJS.WritableStream } {
  // process.stdout writes files and pipes synchronously: pino's default buffers, and the last lines were lost at exit.
  if (config.prettyLogs !== true) return { level: config.logLevel, stream: process.stdout }
  // pino's own pretty printer, in this thread and synchronous, so that nothing is lost on exit.
  return { level: config.logLevel, stream: pinoPretty({ sync: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' }) }
}

/** A Fastify server with the service registered at the root, not yet listening. */
export function createServer (config: ServerConfig): FastifyInstance {
  const headersTimeout = config.headersTimeout ?? serverDefaults.headersTimeout
  const requestTimeout = config.requestTimeout ?? serverDefaults.requestTimeout
  const perRequest = ['debug', 'trace'].includes(config.logLevel)
  // At silent, no logger at all: it would write nothing.
  const silent = config.logLevel === 'silent'
  const fastify: FastifyInstance = Fastify({
    logger: silent ? false : loggerOptions(config),
    logController: perRequest ? new OneLinePerRequest() : new LogController({ disableRequestLogging: true }),
    // Errors raised before routing get the service's error body and headers too.
    frameworkErrors,
    clientErrorHandler,
    trustProxy: trustProxyOption(config.trustProxy ?? false),
    // The node:http server, its connections kept and bounded (src/domain/http/connection-table.ts).
    serverFactory: handler => {
      const server = limitedServer({
        // Slow or idle clients are cut off (see connectionLimits for a new connection's first request).
        headersTimeout,
        requestTimeout,
        keepAliveTimeout: config.keepAliveTimeout ?? serverDefaults.keepAliveTimeout,
        connectionsCheckingInterval: connectionsCheckingInterval(headersTimeout, requestTimeout),
        // The app refuses a missing Host itself, with its headers and error body (Node's own 400 has neither).
        requireHostHeader: false
      }, connectionLimits(config, () => fastify.log), screened(handler))
      // One header past the limit is kept, so that screened sees the request went over it.
      server.maxHeadersCount = MAX_HEADERS + 1
      return server
    },
    // On close, requests on open keep-alive connections are still served, with Connection: close.
    return503OnClosing: false,
    forceCloseConnections: false
  })
  // Odd methods (PROPFIND, QUERY, …) reach the service and get its 405, rather than Fastify's 404.
  supportEveryMethod(fastify)
  fastify.register(app, { ...config.app, behindProxy: (config.trustProxy ?? false) !== false })
  return fastify
}

/** The limits on `config`'s connections, each cap said once in the server's log (`log`: made after the server). */
function connectionLimits (config: ServerConfig, log: () => FastifyBaseLogger): ConnectionLimits {
  const perClient = config.maxConnectionsPerClient ?? serverDefaults.maxConnectionsPerClient
  const total = config.maxConnections ?? defaultMaxConnections(openFileLimit())
  return {
    perClient,
    total,
    firstHeadTimeout: config.firstHeadTimeout ?? serverDefaults.firstHeadTimeout,
    drainTimeout: config.drainTimeout ?? serverDefaults.drainTimeout,
    maxPipelined: config.maxPipelined ?? serverDefaults.maxPipelined,
    maxUnsentBytes: config.maxUnsentBytes ?? serverDefaults.maxUnsentBytes,
    abuserTimeout: config.abuserTimeout ?? serverDefaults.abuserTimeout,
    // A class behind one NAT address: a pipelining learner holds their own session first (CLASS=1).
    offencesPerClient: config.preset === undefined ? 1 : CLASS_PIPELINING_OFFENCES,
    bodyGrace: config.bodyGrace ?? serverDefaults.bodyGrace,
    minBodyRate: config.minBodyRate ?? serverDefaults.minBodyRate,
    // Said once per cap for the life of the server (see ConnectionTable).
    onLimit: (cap, client) => {
      log().warn({ client }, {
        perClient: `MAX_CONNECTIONS_PER_CLIENT (${perClient}) reached by ${client}: its new connections are closed at once; this is said only once`,
        total: `MAX_CONNECTIONS (${total}) reached: each new connection closes the oldest idle one, else one whose client takes or sends nothing, and is itself closed at once while every connection is busy; this is said only once`,
        pipelining: config.preset === undefined
          ? `${client} kept pipelining requests without reading the answers: its connection is closed and its new ones refused for a while; this is said only once`
          : `${client} kept pipelining requests without reading the answers: its connection is closed and that session's requests refused for a while (the address's, after ${CLASS_PIPELINING_OFFENCES} such sessions); this is said only once`
      }[cap])
    }
  }
}

/** One line for an operator when the server cannot listen. */
export function listenFailure (error: unknown, config: Pick<ServerConfig, 'host' | 'port'>): string {
  const code = (error as NodeJS.ErrnoException).code
  switch (code) {
    case 'EADDRINUSE':
      return `port ${config.port} is already in use on ${config.host}; stop what holds it or set PORT to another port (PORT=0: any free port)`
    case 'EACCES':
      return `not allowed to listen on port ${config.port}; use a PORT from 1024 up, or give the process the right to bind low ports`
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
    case 'EAI_FAIL':
      return `cannot listen on HOST=${config.host}: no such address on this machine (127.0.0.1: this machine only; 0.0.0.0: every interface)`
    default:
      return `could not start on ${config.host}:${config.port}: ${(error as Error).message}`
  }
}

/** The store as found at start: whether it answers, and how many live sessions a store across the network holds. */
export interface StoreAtStart {
  reachable: boolean
  live?: number
}

/** What the process found once it listened, for the start-up message. */
export interface StartupFacts {
  /** Bound to every interface: the URL of each address learners can use (addresses.ts). */
  addresses?: string[]
  store?: StoreAtStart
  /** Where CLASS=1's made admin token was written (token-file.ts); undefined: said apart, on standard error. */
  adminTokenFile?: string | undefined
}

/** The store line: where, and, when known, whether it answers and what it holds. Never a password. */
function storeSaid (config: ServerConfig, found: StoreAtStart | undefined): string {
  const prefix = config.app.redisKeyPrefix ?? appDefaults.redisKeyPrefix
  let store = 'memory (sessions end with the process)'
  // The host, never the password.
  if (config.app.redisUrl !== undefined) store = `Redis at ${new URL(config.app.redisUrl).host}, keys ${prefix}*`
  if (config.app.redisSentinels !== undefined) {
    store = `Redis (${sentinelsAddress({ sentinelMaster: config.app.redisSentinelMaster, sentinels: config.app.redisSentinels })}), keys ${prefix}*`
  }
  if (found?.reachable === false) return `${store}: not reachable yet; requests that need a session, and GET /heartbeat, answer 503 until it is (the log says when)`
  if (found?.live === undefined) return store
  return `${store}; ${found.live === 0 ? 'no live session' : found.live === 1 ? '1 live session' : `${found.live} live sessions`} there at start`
}

/** The class preset's line: what CLASS=1 set, and what the environment kept. */
function presetSaid (preset: NonNullable<ServerConfig['preset']>): string {
  const set = [...preset.set, ...(preset.adminTokenMade ? ['a new ADMIN_TOKEN (adminToken, below, says where to read it)'] : [])]
  const kept = preset.kept.length === 0 ? '' : `; kept as given: ${preset.kept.join(', ')}`
  return `on (CLASS=1): ${set.length === 0 ? 'nothing to set' : `set ${set.join(', ')}`}${kept}`
}

/** Where CLASS=1's made admin token is, for the start-up message: a file only its user reads, or, when none could be written, apart. */
function tokenSaid (file: string | undefined): string {
  return file === undefined
    ? 'printed apart, on standard error (no file could be written): not in this block, which the room may see'
    : `in ${file}, which only you can read (not in this block, which the room may see): paste it into the board's page; the file goes when the server stops`
}

/** What a person needs once the server listens: where, in which mode, with which store, and the first request. */
export function startupMessage (address: string, config: ServerConfig, facts: StartupFacts = {}): [Record<string, unknown>, string] {
  const docs = config.app.docs ?? appDefaults.docs
  const mode = config.app.mode ?? appDefaults.mode
  // Where learners reach it, when PUBLIC_URL says (a container, a proxy); else, bound to every interface, the
  // first address learners can use, when there is one, rather than 127.0.0.1. `addresses` stay the listener's.
  const primary = config.publicUrl ?? facts.addresses?.[0] ?? address
  const { preset } = config
  return [{
    address: primary,
    ...(facts.addresses === undefined ? {} : { addresses: facts.addresses.length === 0 ? 'none but this machine\'s: no network interface is up' : facts.addresses }),
    landingPage: `${primary}/`,
    docs: docs ? `${primary}/docs` : 'off (DOCS=false)',
    mode: mode === 'single' ? 'single-player (one session for every request)' : 'multi-player (a session per learner)',
    store: storeSaid(config, facts.store),
    // The instructor's way in: the page, never the token...
    board: config.app.adminToken === undefined ? 'off (no ADMIN_TOKEN)' : `${primary}/admin`,
    ...(preset === undefined ? {} : { class: presetSaid(preset) }),
    // ...and for the one CLASS=1 made, where to read it: this block is meant for the projector, the token never.
    ...(preset?.adminTokenMade === true ? { adminToken: tokenSaid(facts.adminTokenFile) } : {})
  }, `API Challenges practice target ready: curl -i -X POST ${primary}/challenger`]
}

/** The store at start: a store across the network says whether it answers, and its live sessions (one count, once). */
export async function storeAtStart (store: SessionStore): Promise<StoreAtStart> {
  if (store.description === undefined) return { reachable: true }
  // On a busy machine the first connection can take longer than the connect timeout the app waited: one more.
  if (!store.available()) await store.connected?.()
  if (!store.available()) return { reachable: false }
  const live = await store.counts(0).then(counts => counts.live, () => undefined)
  return live === undefined ? { reachable: false } : { reachable: true, live }
}

/** The landing page as a QR code for a terminal, with the line that says what it is. No network. */
export async function landingQr (landingPage: string): Promise<string> {
  const code = await QRCode.toString(landingPage, { type: 'terminal', small: true })
  return `\nThe landing page, ${landingPage}, for a phone's camera:\n${code}`
}

/** A repeat this soon is the same signal: Ctrl-C under `npm start` arrives twice, from the terminal and from npm. */
export const REPEATED_SIGNAL_MS = 500

/**
 * What SIGINT and SIGTERM do: the first begins the graceful close, a repeat does nothing, any other
 * exits at once with 1; after a close begun otherwise (an error, SIGHUP) the next one exits at once.
 */
export function shutdownSignals (log: FastifyBaseLogger, begin: (signal: string) => void, exit: (code: number) => void, now: () => number = () => performance.now()) {
  let closing: { signal: string, at: number } | undefined
  return {
    onSignal (signal: string): void {
      if (closing === undefined) {
        closing = { signal, at: now() }
        log.info({ signal }, 'closing')
        begin(signal)
      } else if (signal !== closing.signal || now() - closing.at >= REPEATED_SIGNAL_MS) {
        log.error({ signal }, `second ${signal}, exiting`)
        exit(1)
      }
    },
    /** A close under way, begun by `signal` (another than SIGINT or SIGTERM), or by an error when there is none. */
    began (signal: string | undefined): void {
      closing ??= { signal: signal ?? 'error', at: now() }
    }
  }
}

/** Calls `gone` once the parent is gone: under npx, npm's SIGTERM reaches a shell that does not pass it on. */
export function watchParent (gone: () => void, ppid: () => number = () => process.ppid, everyMs = 250): NodeJS.Timeout {
  const parent = ppid()
  const timer = setInterval(() => {
    if (ppid() === parent) return
    clearInterval(timer)
    gone()
  }, everyMs).unref()
  return timer
}

/** The line that says why close-with-grace began a close: an error, or a signal (none when it was asked to: the signal said so). */
export function logClosing (log: FastifyBaseLogger, { signal, err }: { signal?: string, err?: Error }): void {
  if (err !== undefined) log.error({ err }, 'closing after an error')
  else if (signal !== undefined) log.info({ signal }, 'closing')
}

/**
 * Closes `fastify` gracefully on SIGINT/SIGTERM (and close-with-grace's other signals and crashes).
 * SIGTERM first drains for `drainMs`: every answer says Connection: close, so clients move on
 * without a reset. SIGINT, Ctrl-C at a terminal, closes at once.
 */
function closeGracefully (fastify: FastifyInstance, drain: AbortController, drainMs: number, env: Record<string, string | undefined>): void {
  let draining: NodeJS.Timeout | undefined
  const begin = (signal: string): void => {
    if (signal !== 'SIGTERM' || drainMs === 0) {
      grace.close()
      return
    }
    drain.abort()
    fastify.log.info({ drainMs }, `draining for ${drainMs} ms: every answer says Connection: close, /readyz and the heartbeat 503; then the server closes`)
    draining = setTimeout(() => { grace.close() }, drainMs)
  }
  const signals = shutdownSignals(fastify.log, begin, code => process.exit(code))
  const grace = closeWithGrace({ delay: 10_000, skip: ['SIGINT', 'SIGTERM'] }, async ({ signal, err }) => {
    // A drain cut short (an error, SIGHUP) ends here: the close is under way.
    clearTimeout(draining)
    logClosing(fastify.log, { signal, err })
    // Begun by an error or another signal: from here on a SIGINT or SIGTERM exits at once.
    signals.began(signal)
    await fastify.close()
    fastify.log.info('server closed: listener, connections and session store; the process exits')
  })
  process.on('SIGINT', signals.onSignal)
  process.on('SIGTERM', signals.onSignal)
  // Started by npx: its SIGTERM reaches us only as the end of our parent, and is taken as one.
  if (env.npm_command === 'exec') {
    watchParent(() => {
      fastify.log.info('the npx that started the server has ended: closing as for SIGTERM')
      signals.onSignal('SIGTERM')
    })
  }
}

/**
 * Starts the practice target from the environment; resolves once it listens, or with undefined
 * (after one line on stderr) when a setting is bad or the address cannot be had.
 */
export async function main (env: Record<string, string | undefined>): Promise<FastifyInstance | undefined> {
  let config: ServerConfig
  try {
    config = configFromEnv(env)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    process.stderr.write(`api-challenges: ${error.message}\n`)
    return undefined
  }
  // A person at a terminal reads the log; anything else (a file, a collector) gets JSON lines.
  config.prettyLogs = process.stdout.isTTY === true
  // SIGTERM aborts it (closeGracefully), and the app, which knows it as an option, drains.
  const drain = new AbortController()
  let store: SessionStore | undefined
  let fastify: FastifyInstance | undefined
  let address: string
  try {
    // The process makes the store, as the app would, so that the start-up message can say how it is; the app closes it.
    store = createStore(resolveOptions(config.app))
    fastify = createServer({ ...config, app: { ...config.app, store, drainSignal: drain.signal } })
    address = await fastify.listen({ port: config.port, host: config.host })
  } catch (error) {
    process.stderr.write(`api-challenges: ${listenFailure(error, config)}\n`)
    await fastify?.close()
    // The app may have failed before it took the store over.
    await store?.close()
    return undefined
  }
  closeGracefully(fastify, drain, config.shutdownDrainMs ?? serverDefaults.shutdownDrainMs, env)
  const addresses = learnerUrls(config.host, (fastify.server.address() as AddressInfo).port)
  const adminTokenFile = config.preset?.adminTokenMade === true ? madeTokenFile(config.app.adminToken as string) : undefined
  const [fields, message] = startupMessage(address, config, { addresses, store: await storeAtStart(store), adminTokenFile })
  fastify.log.info(fields, message)
  // A proxy's trust that the machines of the network could use to escape every per-address limit.
  const trust = trustWarning(config.trustProxy, config.host, localNetworks())
  if (trust !== undefined) fastify.log.warn(trust)
  // For learners' phones, at a terminal, when learners are meant to reach this machine.
  const shown = ['info', 'debug', 'trace'].includes(config.logLevel)
  if (config.prettyLogs === true && shown && (config.preset !== undefined || config.publicUrl !== undefined || !loopbackOnly(config.host))) {
    process.stdout.write(await landingQr(fields.landingPage as string))
  }
  // A misspelt setting is otherwise ignored without a word (PROT=41020 listens on 3000).
  for (const line of misspeltSettings(Object.keys(env), SETTINGS)) fastify.log.warn(line)
  return fastify
}

/** CLASS=1's made admin token in a file (src/domain/config/token-file.ts); when none can be written, on standard error. */
function madeTokenFile (token: string): string | undefined {
  try {
    return writeTokenFile(token)
  } catch {
    process.stderr.write(`api-challenges: the admin token for the class board (for you, not the projector): ${token}\n`)
    return undefined
  }
}

/** For standard output's errors: a reader gone early (`grade --help | head`, `npm start | head`) is no error; any other is. */
export function ignoreClosedPipe (error: NodeJS.ErrnoException): void {
  if (error.code !== 'EPIPE') throw error
}

const entry = process.argv[1]
if (entry !== undefined && import.meta.url === pathToFileURL(realpathSync(entry)).href) {
  // The log's reader gone, the server serves on, its lines dropped.
  process.stdout.on('error', ignoreClosedPipe)
  if (process.argv[2] === 'grade') {
    // `grade -- <command>`: a test suite graded by the defects it catches (src/grade/), on services made here.
    const { grade } = await import('./grade/grade.js')
    process.exitCode = await grade(process.argv.slice(3), { createServer, stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() })
  } else if (await main(process.env) === undefined) process.exitCode = 1
}
