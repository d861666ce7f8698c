// The environment of `npm start`, read in one place and turned into server and app options.
// A bad value stops start-up with one line that names the variable.
import type { ApiChallengesOptions } from './options.js'

export interface ServerConfig {
  port: number
  host: string
  logLevel: string
  /** Trust X-Forwarded-For from a proxy in front (Fastify's trustProxy), for the per-address rate limit. */
  trustProxy?: boolean
  app: ApiChallengesOptions
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

export class ConfigError extends Error {
  override name = 'ConfigError'
}

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

export function configFromEnv (env: Env): ServerConfig {
  const logLevel = nonEmpty(env, 'LOG_LEVEL') ?? 'info'
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(logLevel)}`)
  }
  const app: ApiChallengesOptions = {
    username: nonEmpty(env, 'AUTH_USERNAME'),
    password: nonEmpty(env, 'AUTH_PASSWORD'),
    noteMaxLength: integer(env, 'NOTE_MAX_LENGTH', 1, 1_000_000),
    bodyLimit: integer(env, 'BODY_LIMIT', 1, 100 * 1024 * 1024),
    mode: mode(env),
    sessionIdleMs: integer(env, 'SESSION_IDLE_MS', 1, 2 ** 31 - 1),
    maxSessions: integer(env, 'MAX_SESSIONS', 1, 100_000_000),
    creationRateLimit: integer(env, 'CREATION_RATE_LIMIT', 0, 1_000_000_000),
    docs: flag(env, 'DOCS'),
    redisUrl: nonEmpty(env, 'REDIS_URL'),
    redisKeyPrefix: nonEmpty(env, 'REDIS_PREFIX')
  }
  if (app.username?.includes(':') === true) throw new ConfigError('AUTH_USERNAME must not contain ":"')
  return {
    port: integer(env, 'PORT', 0, 65535) ?? 3000,
    host: nonEmpty(env, 'HOST') ?? '127.0.0.1',
    logLevel,
    trustProxy: flag(env, 'TRUST_PROXY') ?? false,
    // Unset variables leave the app's own defaults in force.
    app: Object.fromEntries(Object.entries(app).filter(([, value]) => value !== undefined))
  }
}
