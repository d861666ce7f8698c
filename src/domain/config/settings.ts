// Every setting, described once: its option name (the key), its environment variable, its type,
// limits and default, and what it does (the comment, which a host's editor shows on the option).
// options.ts checks a host's options by it, config.ts reads npm start's environment by it, and
// test/setup/options.ts and test/setup/config.ts hold the docs' tables to it.
import { MAX_JOURNAL_SIZE } from '../journal/journal.js'
import type { SessionStore } from '../sessions/store.js'
import { abortSignal, choice, credential, defectIds, flag, given, pemFile, publicUrl, redisUrl, sentinels, text, whole } from './kinds.js'
import { trustProxy } from './trust-proxy.js'

/** The shortest admin token accepted. */
const MIN_ADMIN_TOKEN = 16

/** What an admin token must be: it travels in an Authorization header, so visible ASCII without spaces. */
export const ADMIN_TOKEN_PATTERN = new RegExp(`^[\\x21-\\x7e]{${MIN_ADMIN_TOKEN},1000}$`)

// A colon ends a Basic user-id (RFC 7617), and a line break would end the header.
const COLON: readonly [string, string] = [':', '":"']
const LINE_BREAKS: readonly [string, string] = ['\r\n', 'line breaks']

/** The plugin's options; each with an environment variable is also a setting of npm start. */
export const appSettings = {
  /** The Basic username that POST /secret/token accepts. */
  username: credential({ env: 'AUTH_USERNAME', default: 'admin', without: [COLON, LINE_BREAKS] }),
  /** The Basic password that POST /secret/token accepts. */
  password: credential({ env: 'AUTH_PASSWORD', default: 'password', without: [LINE_BREAKS] }),
  /** The realm named in `WWW-Authenticate` when the credentials are refused (the reference's: some learners' suites check it). */
  realm: text({ default: 'User Visible Realm', pattern: /^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/, rule: 'printable ASCII without quotes or backslashes' }),
  /** Notes longer than this many characters (Unicode code points) are truncated when stored. */
  noteMaxLength: whole({ env: 'NOTE_MAX_LENGTH', default: 100, minimum: 1, envMaximum: 1_000_000 }),
  /** Largest request body accepted (a note, a restore, a name), in bytes; a larger one is refused with 413. */
  bodyLimit: whole({ env: 'BODY_LIMIT', default: 16 * 1024, minimum: 1, envMaximum: 100 * 1024 * 1024 }),
  /** `multi`: a session per learner, named by X-CHALLENGER; `single`: one implicit session (SINGLE_PLAYER_GUID) for every request, never expiring. */
  mode: choice({ env: 'MODE', default: 'multi', values: ['multi', 'single'] }),
  /** A session untouched for this long, in milliseconds, is gone. */
  sessionIdleMs: whole({ env: 'SESSION_IDLE_MS', default: 10 * 60 * 1000, minimum: 1, envMaximum: 2 ** 31 - 1 }),
  /** At most this many live sessions; when full, the oldest never-used one makes room, else the least recently used. */
  maxSessions: whole({ env: 'MAX_SESSIONS', default: 100_000, minimum: 1, envMaximum: 100_000_000 }),
  /** Requests kept in each session's journal (GET /challenger/{guid}/requests), 0: none; in memory, maxSessions full journals must fit in the heap. */
  journalSize: whole({ env: 'JOURNAL_SIZE', default: 20, minimum: 0, maximum: MAX_JOURNAL_SIZE }),
  /** Sessions one client address may create per minute (POST /challenger, a recreating PUT); 0 turns the limit off. */
  creationRateLimit: whole({ env: 'CREATION_RATE_LIMIT', default: 60, minimum: 0, envMaximum: 1_000_000_000 }),
  /** Wrong Basic credentials one client address may send to POST /secret/token per minute (one session: 10); 0 turns both limits off. */
  basicGuessLimit: whole({ env: 'BASIC_GUESS_LIMIT', default: 300, minimum: 0, envMaximum: 1_000_000_000 }),
  /** Keep sessions (and the creation limit's counts) in the Redis at this URL, so that several instances serve one class. */
  redisUrl: redisUrl({ env: 'REDIS_URL' }),
  /** Instead of redisUrl: the sentinels (`host:port`) to ask where the Redis primary is, after a failover too. */
  redisSentinels: sentinels({ env: 'REDIS_SENTINELS' }),
  /** The name the sentinels know the primary by (their `sentinel monitor <name>`); `mymaster` when unset. */
  redisSentinelMaster: text({ env: 'REDIS_SENTINEL_MASTER', pattern: /^\S{1,200}$/, rule: 'a name without spaces, up to 200 characters' }),
  /** The sentinels' own password, when they ask for one. */
  redisSentinelPassword: credential({ env: 'REDIS_SENTINEL_PASSWORD', without: [LINE_BREAKS], secret: true }),
  /** With redisSentinels, the primary's (and replicas') password; with redisUrl it goes in the URL. */
  redisPassword: credential({ env: 'REDIS_PASSWORD', without: [LINE_BREAKS], secret: true }),
  /** The CA that signed Redis's certificate, trusted instead of the system's CAs. Turns TLS on. */
  redisTlsCa: pemFile({ env: 'REDIS_TLS_CA' }),
  /** This client's certificate, for a Redis that asks for one (mutual TLS); with redisTlsKey. Turns TLS on. */
  redisTlsCert: pemFile({ env: 'REDIS_TLS_CERT' }),
  /** This client's key, with redisTlsCert. */
  redisTlsKey: pemFile({ env: 'REDIS_TLS_KEY' }),
  /** Put before every Redis key, so that several deployments can share one Redis. */
  redisKeyPrefix: text({ env: 'REDIS_PREFIX', default: 'api-challenges:', pattern: /^\S{0,100}$/, rule: 'up to 100 characters without spaces' }),
  /** From 1, each write is acknowledged once every replica the primary has confirms it (Redis's WAIT), and never fewer than this many; fewer: 503. */
  redisWaitReplicas: whole({ env: 'REDIS_WAIT_REPLICAS', default: 0, minimum: 0, maximum: 100 }),
  /** Serve the OpenAPI document and Swagger UI at /docs (under the prefix). */
  docs: choice({ env: 'DOCS', default: true, values: [true, false] }),
  /** Link each challenge to the reference's own solution page (progress page, OpenAPI descriptions); false for a class that wants none. */
  solutionLinks: choice({ env: 'SOLUTION_LINKS', default: true, values: [true, false] }),
  /** The instructor's token: with it, /admin, /admin/sessions, /admin/summary and /metrics answer to `Authorization: Bearer <token>`; without it they do not exist. */
  adminToken: text({ env: 'ADMIN_TOKEN', pattern: ADMIN_TOKEN_PATTERN, rule: `${MIN_ADMIN_TOKEN} to 1,000 visible ASCII characters (no spaces)`, secret: true }),
  /** Deliberate defects in every answer, by id (docs/bug-hunt.md): for grading test suites, never in class. */
  defects: defectIds({ env: 'DEFECTS' }),
  /** Where sessions live, instead of a memory store made for this registration (closed with the app); it brings its own expiry and capacity. */
  store: given<SessionStore>(),
  /** Once it aborts, every answer says `Connection: close` and `GET /heartbeat` 503, so that clients move away before the app closes (npm start: on SIGTERM). */
  drainSignal: abortSignal(),
  /** The host's server trusts a proxy's X-Forwarded-For (Fastify's trustProxy): a forwarded client that is no address is then refused (400); npm start sets it from TRUST_PROXY. */
  behindProxy: choice({ default: false, values: [true, false] })
}

/** npm start's own settings, for the server around the plugin. */
export const serverSettings = {
  /** The port to listen on; 0: any free port. */
  port: whole({ env: 'PORT', default: 3000, minimum: 0, maximum: 65535 }),
  /** The address to listen on. */
  host: text({ env: 'HOST', default: '127.0.0.1' }),
  /** Where learners reach the server, when not at its own address (a container, a proxy, a forwarded port): the start-up message says it instead. */
  publicUrl: publicUrl({ env: 'PUBLIC_URL' }),
  logLevel: choice({ env: 'LOG_LEVEL', default: 'info', values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] }),
  /** Whose X-Forwarded-For to believe, for the client address (request.ip). */
  trustProxy: trustProxy({ env: 'TRUST_PROXY' }),
  /** Most open connections per client address (IPv6: per /64); 0: no limit. */
  maxConnectionsPerClient: whole({ env: 'MAX_CONNECTIONS_PER_CLIENT', default: 256, minimum: 0, maximum: 1_000_000 }),
  /** Most open connections in all; 0: no limit. Unset: 10,000, or fewer under a lower open-file limit. */
  maxConnections: whole({ env: 'MAX_CONNECTIONS', minimum: 0, maximum: 1_000_000 }),
  /** Milliseconds SIGTERM drains before the close (Connection: close, the heartbeat 503); 0: none. At most setTimeout's limit. */
  shutdownDrainMs: whole({ env: 'SHUTDOWN_DRAIN_MS', default: 5_000, minimum: 0, maximum: 2 ** 31 - 1 }),
  /** The class preset: CLASS_PRESET's values, and a made admin token, wherever the environment leaves them unset. */
  classPreset: flag({ env: 'CLASS' })
}

/** Under CLASS=1, the pipelining offenders (sessions, or connections naming none) one address may have within 10 s
 * before all its new connections are refused: no one learner's client holds the room (src/domain/http/pipelining-offenders.ts). */
export const CLASS_PIPELINING_OFFENCES = 8

/**
 * What CLASS=1 sets where the environment leaves a variable unset, written as the variable would be:
 * a lesson of a few hours, for a room of 30 learners behind one NAT address. An unset ADMIN_TOKEN is made.
 */
export const CLASS_PRESET: Readonly<Record<string, string>> = Object.freeze({
  /** Outlasts a lesson, its long explanations and its coffee break: 3 hours. */
  SESSION_IDLE_MS: String(3 * 60 * 60 * 1000),
  /** 20 sessions a minute for each of 30 learners sharing one address (a restore counts too). */
  CREATION_RATE_LIMIT: '600',
  /** 16 connections for each of 30 learners sharing one address (browsers, Postman, test runners). */
  MAX_CONNECTIONS_PER_CLIENT: '512',
  /** Wrong Basic credentials: each session may send 60 a minute, and the address 40 sessions' worth, so that no one learner holds the room. */
  BASIC_GUESS_LIMIT: '2400',
  /** Every interface: the learners' machines reach this one. */
  HOST: '0.0.0.0'
})
