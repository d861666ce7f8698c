// The plugin's options: their type and defaults, from the table in settings.ts, and resolveOptions,
// which checks a host's options at registration: a bad value or an unknown name fails with a clear message.
import { existsSync, readFileSync } from 'node:fs'
import { getHeapStatistics } from 'node:v8'
import { OptionError } from '../http/errors.js'
import { worstSessionBytes } from '../journal/journal.js'
import { settingsProblem, type ConnectionSettings } from '../sessions/redis/connection.js'
import type { Defaulted, ValueOf } from './kinds.js'
import { nearest } from './misspelt.js'
import { appSettings } from './settings.js'

export { ADMIN_TOKEN_PATTERN } from './settings.js'

type AppSettings = typeof appSettings
type DefaultedOption = Defaulted<AppSettings>

/** The options a host passes to register(), each described in settings.ts. */
export type ApiChallengesOptions = { [K in keyof AppSettings]?: ValueOf<AppSettings[K]> }

/** The options resolved: those with a default always there. */
export type ResolvedOptions = { [K in DefaultedOption]: ValueOf<AppSettings[K]> } & Omit<ApiChallengesOptions, DefaultedOption>

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

/** The fixed guid of the one session in single-player mode. */
export const SINGLE_PLAYER_GUID = '00000000-0000-4000-8000-000000000001'

/** The Redis connection options, by the names ../sessions/redis/connection.ts gives them (for its messages too). */
export const REDIS_OPTION_NAMES = Object.freeze({
  url: 'redisUrl',
  sentinels: 'redisSentinels',
  sentinelMaster: 'redisSentinelMaster',
  sentinelPassword: 'redisSentinelPassword',
  password: 'redisPassword',
  tlsCa: 'redisTlsCa',
  tlsCert: 'redisTlsCert',
  tlsKey: 'redisTlsKey'
} as const satisfies Record<keyof ConnectionSettings, keyof ApiChallengesOptions>)

/** The options that say where Redis is and how to reach it. */
export type RedisConnectionOption = (typeof REDIS_OPTION_NAMES)[keyof ConnectionSettings]

/** Where Redis is, from the options: the settings ../sessions/redis/connection.ts takes. */
export function redisSettings (options: Pick<ApiChallengesOptions, RedisConnectionOption>): ConnectionSettings {
  return Object.fromEntries(Object.entries(REDIS_OPTION_NAMES).map(([setting, option]) => [setting, options[option]]))
}

/** Whether the sessions are in Redis (by URL or through Sentinel). */
export const inRedis = (options: Pick<ApiChallengesOptions, 'redisUrl' | 'redisSentinels'>): boolean =>
  options.redisUrl !== undefined || options.redisSentinels !== undefined

/** The options' defaults. */
export const defaults = Object.freeze(Object.fromEntries(Object.entries(appSettings)
  .filter(([, setting]) => setting.default !== undefined)
  .map(([name, setting]) => [name, setting.default]))) as Readonly<Pick<ResolvedOptions, DefaultedOption>>

const optionNames = Object.keys(appSettings)

// Keys of register()'s options that are Fastify's (its RegisterOptions) and avvio's (`name`), not ours.
const fastifyNames = ['prefix', 'logLevel', 'logSerializers', 'name']

// A misspelt option would otherwise be ignored in silence, and `pasword` leave the default password on.
function refuseUnknown (options: object): void {
  const unknown = Object.keys(options).filter(name => !optionNames.includes(name) && !fastifyNames.includes(name))
  if (unknown.length === 0) return
  const named = unknown.map(name => {
    const guess = nearest(name, [...optionNames, ...fastifyNames])
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
 * When `maxSessions` full journals of a stranger's requests could take more than `limit` bytes: the
 * largest journal size that fits (0: none) and what they could take; undefined when they fit.
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
  const values: Record<string, unknown> = {}
  for (const [name, setting] of Object.entries(appSettings)) {
    // As with a spread over the defaults, an option given as undefined is checked as given.
    const value = Object.hasOwn(options, name) ? options[name as keyof ApiChallengesOptions] : setting.default
    values[name] = value === undefined && setting.default === undefined ? undefined : setting.check(name, value)
  }
  const resolved = values as ResolvedOptions
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
