// The service's options: one interface, its defaults, and the checks that make a bad
// option fail at registration with a clear message.
import { existsSync, readFileSync } from 'node:fs'
import { getHeapStatistics } from 'node:v8'
import { OptionError } from '../http/errors.js'
import { MAX_JOURNAL_SIZE, worstSessionBytes } from '../journal/journal.js'
import { sentinelAddress, settingsProblem, type ConnectionSettings, type SettingNames } from '../sessions/redis/connection.js'
import type { SessionStore } from '../sessions/store.js'

export interface ApiChallengesOptions {
  /** Basic credentials that POST /secret/token accepts. Default `admin` / `password`, as the reference. */
  username?: string
  password?: string
  /** The realm named in `WWW-Authenticate` when the credentials are refused. */
  realm?: string
  /** Notes longer than this many characters (Unicode code points) are truncated when stored. Default 100. */
  noteMaxLength?: number
  /** Largest request body accepted (a note, a restore, a name), in bytes; a larger one is refused with 413. Default 16 KiB. */
  bodyLimit?: number
  /**
   * `multi` (default): each learner has a session of their own, named by X-CHALLENGER.
   * `single`: one implicit session (guid SINGLE_PLAYER_GUID) serves every request, with or without
   * X-CHALLENGER; it never expires and does not count toward maxSessions.
   */
  mode?: 'multi' | 'single'
  /** A session untouched for this long, in milliseconds, is gone. Default 10 minutes, as the reference. */
  sessionIdleMs?: number
  /** At most this many live sessions; when full, the oldest never-used one makes room, else the least recently used. Default 100,000. */
  maxSessions?: number
  /**
   * Requests kept in each session's journal (GET /challenger/{guid}/requests), newest first; 0
   * turns the journal off. Default 20, at most 100, and in memory at most what lets maxSessions
   * full journals fit in the heap limit (journalMemory). With a store passed in `store`, the store's
   * own journal size applies; 0 here still turns recording off.
   */
  journalSize?: number
  /** Sessions one client address may create per minute (POST /challenger, a recreating PUT); 0 turns the limit off. Default 60. */
  creationRateLimit?: number
  /**
   * Keep sessions in Redis (redis://host:port/db) instead of this process, so that several
   * instances serve one class and a restart loses nobody. The creation rate limit then counts in
   * the same Redis.
   */
  redisUrl?: string
  /**
   * Keep sessions in the Redis primary that these sentinels name (`host:port` each; IPv6 `[addr]:port`),
   * instead of at one URL: after a failover, the store asks them for the new primary. Not with redisUrl.
   */
  redisSentinels?: string[]
  /** The name the sentinels know the primary by (their `sentinel monitor <name>`). Default `mymaster`. */
  redisSentinelMaster?: string
  /** The sentinels' own password, when they ask for one. */
  redisSentinelPassword?: string
  /** With redisSentinels, the primary's (and replicas') password; with redisUrl it goes in the URL. */
  redisPassword?: string
  /** PEM text of the CA that signed Redis's certificate, trusted instead of the system's CAs. Turns TLS on. */
  redisTlsCa?: string
  /** PEM text of this client's certificate and key, for a Redis that asks for one (mutual TLS). Both or neither; turn TLS on. */
  redisTlsCert?: string
  redisTlsKey?: string
  /** Put before every Redis key, so that several deployments can share one Redis. Default `api-challenges:`. */
  redisKeyPrefix?: string
  /** Replicas that must confirm each write (Redis's WAIT) before it is acknowledged; fewer: 503. Default 0. */
  redisWaitReplicas?: number
  /** Serve the OpenAPI document and Swagger UI at /docs (under the prefix). Default true. */
  docs?: boolean
  /**
   * Link each challenge to the reference's own solution page (on the progress page and in the
   * OpenAPI descriptions), marked as external. Default true; false for a class that wants no solutions.
   */
  solutionLinks?: boolean
  /**
   * The instructor's token (at least 16 characters): with it, the class board (/admin, /admin/sessions,
   * /admin/summary) and /metrics answer to `Authorization: Bearer <token>`. Without it they do not exist.
   */
  adminToken?: string
  /**
   * Where sessions live. Default: a new in-memory store for each registration (with sessionIdleMs
   * and maxSessions), closed with the app. A store passed here brings its own expiry and capacity.
   */
  store?: SessionStore
  /**
   * Once this signal aborts, the service drains before its host closes it: every answer carries
   * `Connection: close` and `GET /heartbeat` says 503, so that clients and load balancers move
   * away while the connections are still served. (npm start aborts it on SIGTERM.)
   */
  drainSignal?: AbortSignal
}

/** The package's version, named in the OpenAPI document: package.json's, the nearest above this file. */
export const VERSION = packageVersion()

function packageVersion (): string {
  // src/domain/config/ in the repository, dist/src/domain/config/ once built: three or four floors up.
  let dir = new URL('.', import.meta.url)
  for (;;) {
    const file = new URL('package.json', dir)
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version
    /* c8 ignore next */
    if (dir.pathname === '/') throw new Error('api-challenges: no package.json above src/domain/config/options')
    dir = new URL('..', dir)
  }
}

/** What a username and a password must not contain: a colon ends a Basic user-id (RFC 7617), and a line break would end the header. */
export const CREDENTIAL_RULES: Readonly<Record<'username' | 'password', ReadonlyArray<readonly [RegExp, string]>>> = Object.freeze({
  username: [[/:/, '":"'], [/[\r\n]/, 'line breaks']],
  password: [[/[\r\n]/, 'line breaks']]
})

function credential (name: 'username' | 'password', value: unknown): string {
  const rules = CREDENTIAL_RULES[name]
  if (typeof value !== 'string' || value === '' || rules.some(([pattern]) => pattern.test(value))) {
    throw new OptionError(`api-challenges: option ${name} must be a non-empty string without ${rules.map(([, what]) => what).join(' or ')}, got ${JSON.stringify(value)}`)
  }
  return value
}

/** The fixed guid of the one session in single-player mode. */
export const SINGLE_PLAYER_GUID = '00000000-0000-4000-8000-000000000001'

/** The options that say where Redis is and how to reach it: optional, even resolved. */
export type RedisConnectionOption = 'redisUrl' | 'redisSentinels' | 'redisSentinelMaster' | 'redisSentinelPassword' | 'redisPassword' | 'redisTlsCa' | 'redisTlsCert' | 'redisTlsKey'

export type ResolvedOptions = Required<Omit<ApiChallengesOptions, 'store' | 'adminToken' | 'drainSignal' | RedisConnectionOption>> &
  Pick<ApiChallengesOptions, 'store' | 'adminToken' | 'drainSignal' | RedisConnectionOption>

/** The Redis connection options' names, for ../sessions/redis/connection.ts's messages. */
export const REDIS_OPTION_NAMES: SettingNames = Object.freeze({
  url: 'redisUrl',
  sentinels: 'redisSentinels',
  sentinelMaster: 'redisSentinelMaster',
  sentinelPassword: 'redisSentinelPassword',
  password: 'redisPassword',
  tlsCa: 'redisTlsCa',
  tlsCert: 'redisTlsCert',
  tlsKey: 'redisTlsKey'
})

/** Where Redis is, from the options: the settings ../sessions/redis/connection.ts takes. */
export function redisSettings (options: Pick<ApiChallengesOptions, RedisConnectionOption>): ConnectionSettings {
  return Object.fromEntries(Object.entries(REDIS_OPTION_NAMES).map(([setting, option]) => [setting, options[option as RedisConnectionOption]]))
}

/** Whether the sessions are in Redis (by URL or through Sentinel). */
export const inRedis = (options: Pick<ApiChallengesOptions, 'redisUrl' | 'redisSentinels'>): boolean =>
  options.redisUrl !== undefined || options.redisSentinels !== undefined

/** A sentinel name: what `sentinel monitor` takes, without spaces. */
export const SENTINEL_MASTER_PATTERN = /^\S{1,200}$/

/** The shortest admin token accepted: 16 characters. */
export const MIN_ADMIN_TOKEN = 16

/** What an admin token must be: it travels in an Authorization header, so visible ASCII without spaces. */
export const ADMIN_TOKEN_PATTERN = new RegExp(`^[\\x21-\\x7e]{${MIN_ADMIN_TOKEN},1000}$`)
export const ADMIN_TOKEN_RULE = `${MIN_ADMIN_TOKEN} to 1,000 visible ASCII characters (no spaces)`

export const defaults = Object.freeze({
  username: 'admin',
  password: 'password',
  // The reference's own realm: its tests, and some learners' suites, check the text.
  realm: 'User Visible Realm',
  noteMaxLength: 100,
  bodyLimit: 16 * 1024,
  mode: 'multi' as 'multi' | 'single',
  sessionIdleMs: 10 * 60 * 1000,
  maxSessions: 100_000,
  journalSize: 20,
  creationRateLimit: 60,
  redisKeyPrefix: 'api-challenges:',
  redisWaitReplicas: 0,
  docs: true,
  solutionLinks: true
})

function whole (name: string, value: unknown, min: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new OptionError(`api-challenges: option ${name} must be a whole number of at least ${min}, got ${JSON.stringify(value)}`)
  }
  return value
}

function atMost (name: string, value: number, max: number): number {
  if (value > max) throw new OptionError(`api-challenges: option ${name} must be at most ${max}, got ${value}`)
  return value
}

function text (name: string, value: unknown, pattern: RegExp, rule: string): string {
  if (typeof value !== 'string' || !pattern.test(value)) {
    throw new OptionError(`api-challenges: option ${name} must be ${rule}, got ${JSON.stringify(value)}`)
  }
  return value
}

function adminToken (value: unknown): string {
  if (typeof value !== 'string' || !ADMIN_TOKEN_PATTERN.test(value)) {
    throw new OptionError(`api-challenges: option adminToken must be ${ADMIN_TOKEN_RULE}, got ${typeof value === 'string' ? `${value.length} characters` : typeof value}`)
  }
  return value
}

function oneOf<T extends string | boolean> (name: string, value: unknown, allowed: readonly T[]): T {
  if (!allowed.includes(value as T)) {
    throw new OptionError(`api-challenges: option ${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`)
  }
  return value as T
}

/** A password or PEM text: never said in the message. */
function secret (name: string, value: unknown, rule: string, pattern: RegExp): string {
  if (typeof value !== 'string' || !pattern.test(value)) {
    throw new OptionError(`api-challenges: option ${name} must be ${rule}, got ${typeof value === 'string' ? `${value.length} characters` : typeof value}`)
  }
  return value
}

function sentinels (value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0 || !value.every(entry => typeof entry === 'string' && sentinelAddress(entry) !== undefined)) {
    throw new OptionError(`api-challenges: option redisSentinels must be a non-empty array of "host:port" strings, got ${JSON.stringify(value)}`)
  }
  return value as string[]
}

const optional = <T>(value: unknown, check: (value: unknown) => T): T | undefined => value === undefined ? undefined : check(value)
const PASSWORD_RULE = 'a non-empty string without line breaks'
const PASSWORD = /^[^\r\n]+$/
const PEM_RULE = 'PEM text (the file\'s contents, not its path)'
const PEM = /-----BEGIN /

function abortSignal (name: string, value: unknown): AbortSignal {
  if (!(value instanceof AbortSignal)) {
    throw new OptionError(`api-challenges: option ${name} must be an AbortSignal, got ${value instanceof AbortController ? 'an AbortController (pass its signal)' : typeof value}`)
  }
  return value
}

// Every option's name, in the order of the interface. `satisfies` makes an option added to the
// interface but not here (or the reverse) a type error, so the list cannot fall behind.
const optionNames = Object.keys({
  username: true,
  password: true,
  realm: true,
  noteMaxLength: true,
  bodyLimit: true,
  mode: true,
  sessionIdleMs: true,
  maxSessions: true,
  journalSize: true,
  creationRateLimit: true,
  redisUrl: true,
  redisSentinels: true,
  redisSentinelMaster: true,
  redisSentinelPassword: true,
  redisPassword: true,
  redisTlsCa: true,
  redisTlsCert: true,
  redisTlsKey: true,
  redisKeyPrefix: true,
  redisWaitReplicas: true,
  docs: true,
  solutionLinks: true,
  adminToken: true,
  store: true,
  drainSignal: true
} satisfies Record<keyof ApiChallengesOptions, true>)

// Keys that reach the plugin in the same object but are not ours: Fastify reads prefix, logLevel
// and logSerializers from register()'s options (its RegisterOptions), and avvio, under it, names
// the plugin after `name`.
const fastifyNames = ['prefix', 'logLevel', 'logSerializers', 'name']

/** The edit distance between two names, ignoring case: how many letters to add, drop or change. */
function distance (a: string, b: string): number {
  const x = a.toLowerCase()
  const y = b.toLowerCase()
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j)
  for (let i = 1; i <= x.length; i++) {
    const row = [i]
    for (let j = 1; j <= y.length; j++) {
      row[j] = Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, (previous[j - 1] as number) + (x[i - 1] === y[j - 1] ? 0 : 1))
    }
    previous = row
  }
  return previous[y.length] as number
}

/** The known name an unknown one was probably meant to be: within a third of its length, at least 1. */
function closest (name: string): string | undefined {
  let best: string | undefined
  let bestDistance = Math.max(1, Math.floor(name.length / 3)) + 1
  for (const known of [...optionNames, ...fastifyNames]) {
    const d = distance(name, known)
    if (d < bestDistance) {
      best = known
      bestDistance = d
    }
  }
  return best
}

// A misspelt option would otherwise be ignored in silence, and `pasword` leave the default password on.
function refuseUnknown (options: object): void {
  const unknown = Object.keys(options).filter(name => !optionNames.includes(name) && !fastifyNames.includes(name))
  if (unknown.length === 0) return
  const named = unknown.map(name => {
    const guess = closest(name)
    return guess === undefined ? JSON.stringify(name) : `${JSON.stringify(name)} (did you mean "${guess}"?)`
  })
  throw new OptionError(`api-challenges: unknown option${unknown.length > 1 ? 's' : ''} ${named.join(', ')}; ` +
    `the options are ${optionNames.join(', ')}, and Fastify's own ${fastifyNames.join(', ')}`)
}

/** The most memory this process's heap may take (--max-old-space-size, or V8's default for the machine), in bytes. */
export function heapLimit (): number {
  return getHeapStatistics().heap_size_limit
}

/**
 * Whether `maxSessions` sessions in memory, each with a full journal of `journalSize` entries of a
 * stranger's texts (worstSessionBytes), could take more than `limit` bytes: then the largest
 * journal size that fits (0: none does) and what they could take; undefined when they fit. The
 * journals are what a stranger can fill, so the journal is what gives way; 0 turns it off.
 */
export function journalMemory (maxSessions: number, journalSize: number, limit: number): { largest: number, bytes: number } | undefined {
  const bytes = maxSessions * worstSessionBytes(journalSize)
  if (journalSize === 0 || bytes <= limit) return undefined
  let largest = journalSize - 1
  while (largest > 0 && maxSessions * worstSessionBytes(largest) > limit) largest--
  return { largest, bytes }
}

/** Bytes in MiB (as --max-old-space-size counts), for a message. */
export function megabytes (bytes: number): string {
  return `${Math.ceil(bytes / 2 ** 20).toLocaleString('en-US')} MiB`
}

/** The caller's options over the defaults, checked; the caller's object is left as it was. */
export function resolveOptions (options: ApiChallengesOptions = {}): ResolvedOptions {
  refuseUnknown(options)
  const merged = { ...defaults, ...options }
  const resolved: ResolvedOptions = {
    username: credential('username', merged.username),
    password: credential('password', merged.password),
    realm: text('realm', merged.realm, /^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/, 'printable ASCII without quotes or backslashes'),
    noteMaxLength: whole('noteMaxLength', merged.noteMaxLength, 1),
    bodyLimit: whole('bodyLimit', merged.bodyLimit, 1),
    mode: oneOf('mode', merged.mode, ['multi', 'single'] as const),
    sessionIdleMs: whole('sessionIdleMs', merged.sessionIdleMs, 1),
    maxSessions: whole('maxSessions', merged.maxSessions, 1),
    journalSize: atMost('journalSize', whole('journalSize', merged.journalSize, 0), MAX_JOURNAL_SIZE),
    creationRateLimit: whole('creationRateLimit', merged.creationRateLimit, 0),
    docs: oneOf('docs', merged.docs, [true, false] as const),
    solutionLinks: oneOf('solutionLinks', merged.solutionLinks, [true, false] as const),
    redisUrl: merged.redisUrl === undefined ? undefined : text('redisUrl', merged.redisUrl, /^rediss?:\/\/\S+$/, 'a redis:// or rediss:// URL'),
    redisSentinels: optional(merged.redisSentinels, sentinels),
    redisSentinelMaster: optional(merged.redisSentinelMaster, value => text('redisSentinelMaster', value, SENTINEL_MASTER_PATTERN, 'a name without spaces, up to 200 characters')),
    redisSentinelPassword: optional(merged.redisSentinelPassword, value => secret('redisSentinelPassword', value, PASSWORD_RULE, PASSWORD)),
    redisPassword: optional(merged.redisPassword, value => secret('redisPassword', value, PASSWORD_RULE, PASSWORD)),
    redisTlsCa: optional(merged.redisTlsCa, value => secret('redisTlsCa', value, PEM_RULE, PEM)),
    redisTlsCert: optional(merged.redisTlsCert, value => secret('redisTlsCert', value, PEM_RULE, PEM)),
    redisTlsKey: optional(merged.redisTlsKey, value => secret('redisTlsKey', value, PEM_RULE, PEM)),
    // Never the value in the message: it is a secret.
    adminToken: merged.adminToken === undefined ? undefined : adminToken(merged.adminToken),
    redisKeyPrefix: text('redisKeyPrefix', merged.redisKeyPrefix, /^[^\s]{0,100}$/, 'up to 100 characters without spaces'),
    redisWaitReplicas: atMost('redisWaitReplicas', whole('redisWaitReplicas', merged.redisWaitReplicas, 0), 100),
    store: merged.store,
    drainSignal: merged.drainSignal === undefined ? undefined : abortSignal('drainSignal', merged.drainSignal)
  }
  const problem = settingsProblem(redisSettings(resolved), REDIS_OPTION_NAMES)
  if (problem !== undefined) throw new OptionError(`api-challenges: ${problem}`)
  // Journals in this process only: a store of the host's or Redis keeps them elsewhere.
  const excess = resolved.store === undefined && !inRedis(resolved)
    ? journalMemory(resolved.maxSessions, resolved.journalSize, heapLimit())
    : undefined
  if (excess !== undefined) {
    throw new OptionError(`api-challenges: option journalSize ${resolved.journalSize} with maxSessions ${resolved.maxSessions}: full journals of a stranger's requests ` +
      `could take ${megabytes(excess.bytes)}, more than the heap limit of ${megabytes(heapLimit())}; journalSize may be at most ${excess.largest} with that many sessions`)
  }
  return resolved
}
