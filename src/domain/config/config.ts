// The environment of `npm start`, read in one place and turned into server and app options.
// A bad value stops start-up with one line that names the variable.
import { readFileSync } from 'node:fs'
import { isIP } from 'node:net'
import { everyClientOf, NAMED_RANGES } from '../http/address-ranges.js'
import { ConfigError } from '../http/errors.js'
import { MAX_JOURNAL_SIZE } from '../journal/journal.js'
import { ADMIN_TOKEN_PATTERN, ADMIN_TOKEN_RULE, CREDENTIAL_RULES, defaults, heapLimit, inRedis, journalMemory, megabytes, redisSettings, SENTINEL_MASTER_PATTERN, type ApiChallengesOptions } from './options.js'
import { sentinelAddress, settingsProblem, type SettingNames } from '../sessions/redis/connection.js'

/** An environment variable the server cannot use (APICH_CONFIG): src/server.ts says so and does not start. */
export { ConfigError }

/**
 * Which X-Forwarded-For hops to believe (Fastify's trustProxy): none (false), the last `n` (the
 * proxies in front), or those added by the proxies at these addresses or CIDRs (comma-separated;
 * also proxy-addr's names loopback, linklocal, uniquelocal). Never every hop: a client could then
 * name any address it likes.
 */
export type TrustProxy = false | number | string

export interface ServerConfig {
  port: number
  host: string
  logLevel: string
  /** Whose X-Forwarded-For to believe, for the client address (request.ip). Default false. */
  trustProxy?: TrustProxy
  /** Most open connections per client address (IPv6: per /64); 0: no limit. Default 256. */
  maxConnectionsPerClient?: number
  /** Most open connections in all; 0: no limit. Default 10,000, or fewer under a lower open-file limit. */
  maxConnections?: number
  /** Milliseconds a request's headers may take to arrive (408 after). Default 10 s. */
  headersTimeout?: number
  /** Milliseconds a whole request may take to arrive (408 after). Default 30 s. */
  requestTimeout?: number
  /** Milliseconds an idle keep-alive connection stays open. Default 5 s. */
  keepAliveTimeout?: number
  /** Milliseconds a new connection has to send its first request head (closed after). Default 2.5 s. */
  firstHeadTimeout?: number
  /** Milliseconds a connection's answers may wait on a client that does not read them (closed after). Default 5 s. */
  drainTimeout?: number
  /** Most pipelined requests in flight on one connection. Default 32. */
  maxPipelined?: number
  /** Most bytes of answers one connection may hold while its client does not read them. Default 256 KiB. */
  maxUnsentBytes?: number
  /** Milliseconds a client that kept pipelining past twice maxPipelined has its new connections refused. Default 10 s. */
  abuserTimeout?: number
  /** Human log lines (pino-pretty) instead of JSON lines. Default false. */
  prettyLogs?: boolean
  /** Milliseconds SIGTERM drains before the close (Connection: close, the heartbeat 503); 0: none. Default 5 s. */
  shutdownDrainMs?: number
  app: ApiChallengesOptions
}

export const serverDefaults = Object.freeze({
  maxConnectionsPerClient: 256,
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  keepAliveTimeout: 5_000,
  shutdownDrainMs: 5_000,
  firstHeadTimeout: 2_500,
  drainTimeout: 5_000,
  maxPipelined: 32,
  maxUnsentBytes: 256 * 1024,
  abuserTimeout: 10_000
})

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

type Env = Record<string, string | undefined>

function integer (env: Env, name: string, min: number, max: number): number | undefined {
  const raw = env[name]
  if (raw === undefined || raw === '') return undefined
  const value = Number(raw)
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`)
  }
  return value
}

function nonEmpty (env: Env, name: string): string | undefined {
  const raw = env[name]
  return raw === undefined || raw === '' ? undefined : raw
}

/** A variable that may be unset (the default) but not set to nothing: an empty password is a mistake, not a wish for the default. */
function setOrUnset (env: Env, name: string, forbidden: ReadonlyArray<readonly [RegExp, string]>): string | undefined {
  const raw = env[name]
  if (raw === undefined) return undefined
  if (raw === '') throw new ConfigError(`${name} is set but empty; unset it for the default`)
  for (const [pattern, what] of forbidden) {
    if (pattern.test(raw)) throw new ConfigError(`${name} must not contain ${what}`)
  }
  return raw
}

function redisUrl (env: Env): string | undefined {
  const raw = nonEmpty(env, 'REDIS_URL')
  if (raw === undefined) return undefined
  if (/^rediss?:\/\/\S+$/.test(raw)) {
    if (URL.canParse(raw)) return raw
    // Not the value itself: a URL can hold a password.
    throw new ConfigError('REDIS_URL is a redis:// URL that cannot be read: check its host and port, and percent-encode any @, : or / in its password')
  }
  // Not the value itself: a URL can hold a password.
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw)?.[1]
  throw new ConfigError(`REDIS_URL must be a redis:// or rediss:// URL such as redis://127.0.0.1:6379/0, got ${scheme === undefined ? 'no scheme' : `a ${scheme}:// URL`}`)
}

function redisSentinels (env: Env): string[] | undefined {
  const raw = nonEmpty(env, 'REDIS_SENTINELS')
  if (raw === undefined) return undefined
  const entries = raw.split(',').map(entry => entry.trim())
  if (entries.every(entry => sentinelAddress(entry) !== undefined)) return entries
  throw new ConfigError(`REDIS_SENTINELS must be the sentinels' host:port separated by commas, such as 10.0.0.1:26379,10.0.0.2:26379, got ${JSON.stringify(raw)}`)
}

function sentinelMaster (env: Env): string | undefined {
  const raw = nonEmpty(env, 'REDIS_SENTINEL_MASTER')
  if (raw === undefined || SENTINEL_MASTER_PATTERN.test(raw)) return raw
  throw new ConfigError('REDIS_SENTINEL_MASTER must be a name without spaces, up to 200 characters')
}

/** The contents of the PEM file a variable names (its path), read at start: a file that cannot be read stops start-up. */
function pemFile (env: Env, name: string): string | undefined {
  const path = nonEmpty(env, name)
  if (path === undefined) return undefined
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    throw new ConfigError(`${name}=${path} cannot be read (${(error as NodeJS.ErrnoException).code}): it must name a PEM file this process may read`)
  }
}

/** The Redis variables' names, for the messages that judge them together; a file's with its path. */
function redisNames (env: Env): SettingNames {
  const file = (name: string): string => { const path = nonEmpty(env, name); return path === undefined ? name : `${name}=${path}` }
  return {
    url: 'REDIS_URL',
    sentinels: 'REDIS_SENTINELS',
    sentinelMaster: 'REDIS_SENTINEL_MASTER',
    sentinelPassword: 'REDIS_SENTINEL_PASSWORD',
    password: 'REDIS_PASSWORD',
    tlsCa: file('REDIS_TLS_CA'),
    tlsCert: file('REDIS_TLS_CERT'),
    tlsKey: file('REDIS_TLS_KEY')
  }
}

function adminToken (env: Env): string | undefined {
  const raw = env.ADMIN_TOKEN
  if (raw === undefined) return undefined
  // Its length, never its value: the line goes to a log.
  if (!ADMIN_TOKEN_PATTERN.test(raw)) throw new ConfigError(`ADMIN_TOKEN must be ${ADMIN_TOKEN_RULE}, got ${raw.length} characters${/\s/.test(raw) ? ' with spaces' : ''}`)
  return raw
}

const TRUST_EXAMPLES = 'set the number of proxies in front (TRUST_PROXY=1) or their addresses (TRUST_PROXY=10.0.0.5,10.0.1.0/24)'

/** An address, a CIDR (address/bits) or one of proxy-addr's names. */
function proxyAddress (entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true
  const [address = '', bits, extra] = entry.split('/')
  const family = isIP(address)
  if (family === 0 || extra !== undefined) return false
  // A zone (fe80::1%eth0) that proxy-addr cannot read would stop start-up with a stack trace.
  if (/%(?![0-9a-z]+$)/i.test(address)) return false
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128))
}

function trustProxy (env: Env): TrustProxy {
  const raw = nonEmpty(env, 'TRUST_PROXY')
  if (raw === undefined || raw === 'false' || raw === '0') return false
  if (raw === 'true') throw new ConfigError(`TRUST_PROXY=true trusts any client's X-Forwarded-For; ${TRUST_EXAMPLES}`)
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw)
    if (hops <= 100) return hops
  }
  const entries = raw.split(',').map(entry => entry.trim())
  if (!entries.every(proxyAddress)) {
    throw new ConfigError(`TRUST_PROXY must be false, a number of proxies (1 to 100), or proxy addresses or CIDRs separated by commas, got ${JSON.stringify(raw)}`)
  }
  // Ranges that together take in every client (0.0.0.0/0, or 0.0.0.0/1,128.0.0.0/1) are true by another name.
  const everyone = everyClientOf(entries)
  if (everyone !== undefined) {
    throw new ConfigError(`TRUST_PROXY=${entries.join(',')} takes in every ${everyone} client, so any client's X-Forwarded-For is trusted, as with true; ${TRUST_EXAMPLES}`)
  }
  return entries.join(',')
}

function mode (env: Env): 'multi' | 'single' | undefined {
  const raw = nonEmpty(env, 'MODE')
  if (raw === undefined || raw === 'multi' || raw === 'single') return raw
  throw new ConfigError(`MODE must be multi or single, got ${JSON.stringify(raw)}`)
}

function flag (env: Env, name: string): boolean | undefined {
  const raw = nonEmpty(env, name)
  if (raw === undefined) return undefined
  if (raw === 'true' || raw === 'false') return raw === 'true'
  throw new ConfigError(`${name} must be true or false, got ${JSON.stringify(raw)}`)
}

/** In memory, MAX_SESSIONS full journals of a stranger's requests must fit in the heap limit (see journalMemory). */
function journalFits (app: ApiChallengesOptions): void {
  if (inRedis(app)) return
  const sessions = app.maxSessions ?? defaults.maxSessions
  const size = app.journalSize ?? defaults.journalSize
  const limit = heapLimit()
  const excess = journalMemory(sessions, size, limit)
  if (excess === undefined) return
  throw new ConfigError(`JOURNAL_SIZE=${size} with MAX_SESSIONS=${sessions}: full journals of a stranger's requests could take ${megabytes(excess.bytes)}, ` +
    `more than this process's heap limit of ${megabytes(limit)}; set JOURNAL_SIZE to at most ${excess.largest} (0: no journal), ` +
    'lower MAX_SESSIONS, or raise the limit (NODE_OPTIONS=--max-old-space-size=<MiB>)')
}

/**
 * Every variable configFromEnv reads (test/docs-links.test.ts checks the list against the source), for
 * the start-up warning about names that look like one of them (src/domain/config/misspelt.ts).
 */
export const SETTINGS: readonly string[] = [
  'ADMIN_TOKEN', 'AUTH_PASSWORD', 'AUTH_USERNAME', 'BODY_LIMIT', 'CREATION_RATE_LIMIT', 'DOCS',
  'HOST', 'JOURNAL_SIZE', 'LOG_LEVEL', 'MAX_CONNECTIONS', 'MAX_CONNECTIONS_PER_CLIENT',
  'MAX_SESSIONS', 'MODE', 'NOTE_MAX_LENGTH', 'PORT', 'REDIS_PASSWORD', 'REDIS_PREFIX',
  'REDIS_SENTINELS', 'REDIS_SENTINEL_MASTER', 'REDIS_SENTINEL_PASSWORD', 'REDIS_TLS_CA',
  'REDIS_TLS_CERT', 'REDIS_TLS_KEY', 'REDIS_URL', 'REDIS_WAIT_REPLICAS', 'SESSION_IDLE_MS',
  'SHUTDOWN_DRAIN_MS', 'SOLUTION_LINKS', 'TRUST_PROXY'
]

export function configFromEnv (env: Env): ServerConfig {
  const logLevel = nonEmpty(env, 'LOG_LEVEL') ?? 'info'
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(logLevel)}`)
  }
  const app: ApiChallengesOptions = {
    // The options' rules for username and password, said with the variables' names.
    username: setOrUnset(env, 'AUTH_USERNAME', CREDENTIAL_RULES.username),
    password: setOrUnset(env, 'AUTH_PASSWORD', CREDENTIAL_RULES.password),
    noteMaxLength: integer(env, 'NOTE_MAX_LENGTH', 1, 1_000_000),
    bodyLimit: integer(env, 'BODY_LIMIT', 1, 100 * 1024 * 1024),
    mode: mode(env),
    sessionIdleMs: integer(env, 'SESSION_IDLE_MS', 1, 2 ** 31 - 1),
    maxSessions: integer(env, 'MAX_SESSIONS', 1, 100_000_000),
    journalSize: integer(env, 'JOURNAL_SIZE', 0, MAX_JOURNAL_SIZE),
    creationRateLimit: integer(env, 'CREATION_RATE_LIMIT', 0, 1_000_000_000),
    docs: flag(env, 'DOCS'),
    solutionLinks: flag(env, 'SOLUTION_LINKS'),
    redisUrl: redisUrl(env),
    redisSentinels: redisSentinels(env),
    redisSentinelMaster: sentinelMaster(env),
    redisSentinelPassword: setOrUnset(env, 'REDIS_SENTINEL_PASSWORD', CREDENTIAL_RULES.password),
    redisPassword: setOrUnset(env, 'REDIS_PASSWORD', CREDENTIAL_RULES.password),
    redisTlsCa: pemFile(env, 'REDIS_TLS_CA'),
    redisTlsCert: pemFile(env, 'REDIS_TLS_CERT'),
    redisTlsKey: pemFile(env, 'REDIS_TLS_KEY'),
    redisKeyPrefix: nonEmpty(env, 'REDIS_PREFIX'),
    redisWaitReplicas: integer(env, 'REDIS_WAIT_REPLICAS', 0, 100),
    adminToken: adminToken(env)
  }
  if (app.redisKeyPrefix !== undefined && !/^\S{0,100}$/.test(app.redisKeyPrefix)) {
    throw new ConfigError('REDIS_PREFIX must be up to 100 characters without spaces')
  }
  const problem = settingsProblem(redisSettings(app), redisNames(env))
  if (problem !== undefined) throw new ConfigError(problem)
  journalFits(app)
  return {
    port: integer(env, 'PORT', 0, 65535) ?? 3000,
    host: nonEmpty(env, 'HOST') ?? '127.0.0.1',
    logLevel,
    trustProxy: trustProxy(env),
    // Unset, these stay out, and createServer's defaults apply.
    ...defined({
      maxConnectionsPerClient: integer(env, 'MAX_CONNECTIONS_PER_CLIENT', 0, 1_000_000),
      maxConnections: integer(env, 'MAX_CONNECTIONS', 0, 1_000_000),
      // setTimeout's own limit, about 24 days.
      shutdownDrainMs: integer(env, 'SHUTDOWN_DRAIN_MS', 0, 2 ** 31 - 1)
    }),
    // Unset variables leave the app's own defaults in force.
    app: defined(app)
  }
}

function defined<T extends object> (values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>
}
