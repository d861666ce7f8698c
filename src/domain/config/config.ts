// The environment of `npm start`, read by the table of settings.ts and turned into server and app
// options. A bad value stops start-up with one line that names the variable. CLASS=1 fills in a class's values first.
import { randomBytes } from 'node:crypto'
import { ConfigError } from '../http/errors.js'
import { settingsProblem, type SettingNames } from '../sessions/redis/connection.js'
import type { Setting, ValueOf } from './kinds.js'
import { defaults, heapLimit, inRedis, journalMemory, megabytes, REDIS_OPTION_NAMES, redisSettings, type ApiChallengesOptions } from './options.js'
import { appSettings, CLASS_PRESET, serverSettings } from './settings.js'

/** An environment variable the server cannot use (APICH_CONFIG): src/server.ts says so and does not start. */
export { ConfigError }
export type { TrustProxy } from './trust-proxy.js'

type ServerSettings = typeof serverSettings

/** What npm start passes createServer: the server's settings, its tuning, and the app's options. */
export type ServerConfig = { [K in keyof ServerSettings]?: ValueOf<ServerSettings[K]> } &
  { [K in 'port' | 'host' | 'logLevel']: ValueOf<ServerSettings[K]> } & ServerTuning & { app: ApiChallengesOptions, preset?: ClassPreset }

/** What CLASS=1 did, for the start-up message. */
export interface ClassPreset {
  /** The variables it set, as `NAME=value`. */
  set: string[]
  /** The variables of the preset that the environment set itself. */
  kept: string[]
  /** It made the admin token (ADMIN_TOKEN was unset): the start-up message says it, once. */
  adminTokenMade: boolean
}

/** What the environment does not set: tests and hosts of createServer may. */
export interface ServerTuning {
  /** Milliseconds a request's headers may take to arrive (408 after). */
  headersTimeout?: number
  /** Milliseconds a whole request may take to arrive (408 after). */
  requestTimeout?: number
  /** Milliseconds an idle keep-alive connection stays open. */
  keepAliveTimeout?: number
  /** Milliseconds a new connection has to send its first request head (closed after). */
  firstHeadTimeout?: number
  /** Milliseconds an answer may wait on a client that takes none of it (closed after). */
  drainTimeout?: number
  /** Most pipelined requests in flight on one connection. */
  maxPipelined?: number
  /** Most bytes of answers one connection may hold while its client does not read them. */
  maxUnsentBytes?: number
  /** Milliseconds a client that kept pipelining past twice maxPipelined has its new connections refused. */
  abuserTimeout?: number
  /** Milliseconds a request body may take before minBodyRate applies. */
  bodyGrace?: number
  /** Bytes a second a request body must arrive at after bodyGrace (408 and closed below it); 0: no minimum. */
  minBodyRate?: number
  /** Human log lines (pino-pretty) instead of JSON lines. */
  prettyLogs?: boolean
}

export const serverDefaults = Object.freeze({
  maxConnectionsPerClient: serverSettings.maxConnectionsPerClient.default,
  shutdownDrainMs: serverSettings.shutdownDrainMs.default,
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  keepAliveTimeout: 5_000,
  firstHeadTimeout: 2_500,
  drainTimeout: 5_000,
  maxPipelined: 32,
  maxUnsentBytes: 256 * 1024,
  abuserTimeout: 10_000,
  bodyGrace: 2_000,
  minBodyRate: 8_192
})

type Env = Record<string, string | undefined>

/** Every variable configFromEnv reads, for the start-up warning about names that look like one (misspelt.ts). */
export const SETTINGS: readonly string[] = Object.values({ ...serverSettings, ...appSettings } as Record<string, Setting<unknown>>)
  .flatMap(setting => setting.env ?? []).sort()

/** The values of a table's variables that are set, by setting name. */
function readAll (table: Record<string, Setting<unknown>>, env: Env): Record<string, unknown> {
  const values: Record<string, unknown> = {}
  for (const [name, setting] of Object.entries(table)) {
    if (setting.read === undefined || setting.env === undefined) continue
    const value = setting.read(setting.env, env[setting.env])
    if (value !== undefined) values[name] = value
  }
  return values
}

/** The Redis variables' names, for the messages that judge them together; a file's with its path. */
function redisNames (env: Env): SettingNames {
  return Object.fromEntries(Object.entries(REDIS_OPTION_NAMES).map(([key, option]) => {
    const { env: name, path } = appSettings[option] as Setting<unknown>
    const value = env[name as string]
    return [key, path === true && value !== undefined && value !== '' ? `${name}=${value}` : name]
  })) as SettingNames
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

/** The log levels that show the start-up message. */
const SAYS_INFO: ReadonlyArray<string | undefined> = ['info', 'debug', 'trace', undefined]

/** `env` with CLASS_PRESET's values where it leaves them unset (set but empty too), and a made admin token where it has none. */
function withClassPreset (env: Env, makeToken: () => string): { env: Env, preset: ClassPreset } {
  const filled: Env = { ...env }
  const preset: ClassPreset = { set: [], kept: [], adminTokenMade: false }
  for (const [name, value] of Object.entries(CLASS_PRESET)) {
    if (env[name] !== undefined && env[name] !== '') {
      preset.kept.push(name)
      continue
    }
    filled[name] = value
    preset.set.push(`${name}=${value}`)
  }
  // A token set but empty is refused as ever, not replaced.
  if (env.ADMIN_TOKEN !== undefined) preset.kept.push('ADMIN_TOKEN')
  else {
    // Said once, in the start-up message: a level that hides it would leave the board locked.
    const level = serverSettings.logLevel.read?.('LOG_LEVEL', env.LOG_LEVEL)
    if (!SAYS_INFO.includes(level)) {
      throw new ConfigError(`CLASS=1 makes the admin token and says it in the start-up message, which LOG_LEVEL=${level as string} hides; set ADMIN_TOKEN yourself, or LOG_LEVEL=info`)
    }
    filled.ADMIN_TOKEN = makeToken()
    preset.adminTokenMade = true
  }
  return { env: filled, preset }
}

/** npm start's configuration from `env`; `makeToken` makes CLASS=1's admin token (48 hex digits, as `openssl rand -hex 24`). */
export function configFromEnv (env: Env, makeToken = (): string => randomBytes(24).toString('hex')): ServerConfig {
  let preset: ClassPreset | undefined
  if (readAll(serverSettings, env).classPreset === true) ({ env, preset } = withClassPreset(env, makeToken))
  const server = readAll(serverSettings, env)
  // Unset variables stay out, and leave the app's own defaults in force.
  const app: ApiChallengesOptions = readAll(appSettings, env)
  const problem = settingsProblem(redisSettings(app), redisNames(env))
  if (problem !== undefined) throw new ConfigError(problem)
  journalFits(app)
  return {
    // These always; the rest, unset, stay out, and createServer's defaults apply.
    port: serverSettings.port.default,
    host: serverSettings.host.default,
    logLevel: serverSettings.logLevel.default,
    trustProxy: serverSettings.trustProxy.default,
    ...server,
    app,
    ...(preset === undefined ? {} : { preset })
  }
}
