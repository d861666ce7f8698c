// The kinds of setting. Each kind makes, from one description, the TypeBox schema of the value,
// the check of a host's option (an OptionError) and the reading of an environment variable (a
// ConfigError); the messages are made from the same limits, so that a rule is written once.
import { Type, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { readFileSync } from 'node:fs'
import { ConfigError, OptionError } from '../http/errors.js'
import { checkDefectIds } from '../defects/catalogue.js'
import { sentinelAddress } from '../sessions/redis/connection.js'

/** One setting: `T` its value, `D` its default (undefined: none, the setting is optional). */
export interface Setting<T, D extends T | undefined = T | undefined> {
  /** The value's type and limits. */
  readonly schema: TSchema
  readonly default: D
  /** Its environment variable under npm start; none for what only a host's code can pass. */
  readonly env?: string
  /** The variable names a file, whose contents are the value: messages name the path too. */
  readonly path?: true
  /** A host's option, checked: the value, or an OptionError naming `name`. */
  readonly check?: (name: string, value: unknown) => T
  /** The variable's text, read: the value (undefined: unset), or a ConfigError naming `name`. */
  readonly read?: (name: string, raw: string | undefined) => T | undefined
}

/** A setting that is also a plugin option: it checks a host's value. */
export interface OptionSetting<T, D extends T | undefined = T | undefined> extends Setting<T, D> {
  readonly check: (name: string, value: unknown) => T
}

/** The value a setting holds. */
export type ValueOf<S> = S extends Setting<infer T> ? T : never

/** The names of a table's settings that have a default. */
export type Defaulted<Table> = { [K in keyof Table]: Table[K] extends { default: infer D } ? ([D] extends [undefined] ? never : K) : never }[keyof Table]

interface Common<D> {
  env?: string
  default?: D
  /** Never say the value in a message (a password, a token, a key): its length only. */
  secret?: boolean
}

const optionError = (name: string, rule: string, got: string): OptionError =>
  new OptionError(`api-challenges: option ${name} must be ${rule}, got ${got}`)

/** A value as a message shows it: a secret by its length (or its type) only. */
const shown = (value: unknown, secret = false): string =>
  !secret ? JSON.stringify(value) : typeof value === 'string' ? `${value.length} characters` : typeof value

/** Unset, or set to nothing: for most variables, the same. */
const blank = (raw: string | undefined): raw is undefined | '' => raw === undefined || raw === ''

/**
 * A whole number from `minimum`, up to `maximum`; or, with `envMaximum`, bounded in the environment
 * only (an option, set in code, is bounded by its type).
 */
export function whole<D extends number | undefined = undefined> (spec: Common<D> & { minimum: number } & ({ maximum: number } | { envMaximum: number })): OptionSetting<number, D> {
  const { minimum } = spec
  const maximum = 'maximum' in spec ? spec.maximum : undefined
  const schema = Type.Integer({ minimum, maximum: maximum ?? Number.MAX_SAFE_INTEGER, default: spec.default })
  const envSchema = Type.Integer({ minimum, maximum: 'envMaximum' in spec ? spec.envMaximum : maximum })
  return {
    schema,
    default: spec.default as D,
    env: spec.env,
    check: (name, value) => {
      if (Value.Check(schema, value)) return value
      if (!Number.isSafeInteger(value) || (value as number) < minimum) throw optionError(name, `a whole number of at least ${minimum}`, shown(value))
      throw new OptionError(`api-challenges: option ${name} must be at most ${maximum}, got ${value as number}`)
    },
    read: (name, raw) => {
      if (blank(raw)) return undefined
      const value = Number(raw)
      if (/^\d+$/.test(raw) && Value.Check(envSchema, value)) return value
      throw new ConfigError(`${name} must be a whole number from ${minimum} to ${envSchema.maximum as number}, got ${JSON.stringify(raw)}`)
    }
  }
}

/** One of a few values; in the environment, each written as itself (`true`, `multi`). */
export function choice<const V extends ReadonlyArray<string | boolean>, D extends V[number] | undefined = undefined> (spec: Common<D> & { values: V }): OptionSetting<V[number], D> {
  const { values } = spec
  const schema = Type.Union(values.map(value => Type.Literal(value)), { default: spec.default })
  const said = values.length === 2 ? `${values[0]} or ${values[1]}` : `one of ${values.join(', ')}`
  return {
    schema,
    default: spec.default as D,
    env: spec.env,
    check: (name, value) => {
      if (Value.Check(schema, value)) return value as V[number]
      throw optionError(name, `one of ${values.join(', ')}`, shown(value))
    },
    read: (name, raw) => {
      if (blank(raw)) return undefined
      const value = values.find(allowed => String(allowed) === raw)
      if (value !== undefined) return value
      throw new ConfigError(`${name} must be ${said}, got ${JSON.stringify(raw)}`)
    }
  }
}

/** On or off: in the environment `1` or `true`, `0` or `false`; unset (or empty) is off. */
export function flag (spec: { env: string }): Setting<boolean, undefined> {
  return {
    schema: Type.Boolean(),
    default: undefined,
    env: spec.env,
    read: (name, raw) => {
      if (blank(raw)) return undefined
      if (raw === '1' || raw === 'true') return true
      if (raw === '0' || raw === 'false') return false
      throw new ConfigError(`${name} must be 1 (on) or 0 (off), got ${JSON.stringify(raw)}`)
    }
  }
}

/**
 * A non-empty string without the characters `without` lists (each with the words a message says).
 * In the environment, set but empty is refused: an empty password is a mistake, not a wish for the default.
 */
export function credential<D extends string | undefined = undefined> (spec: Common<D> & { without: ReadonlyArray<readonly [characters: string, words: string]> }): OptionSetting<string, D> {
  const { without, secret } = spec
  const schema = Type.String({ pattern: `^[^${without.map(([characters]) => characters).join('')}]+$`, default: spec.default })
  const rule = `a non-empty string without ${without.map(([, words]) => words).join(' or ')}`
  return {
    schema,
    default: spec.default as D,
    env: spec.env,
    check: (name, value) => {
      if (Value.Check(schema, value)) return value as string
      throw optionError(name, rule, shown(value, secret))
    },
    read: (name, raw) => {
      if (raw === undefined) return undefined
      if (raw === '') throw new ConfigError(`${name} is set but empty; unset it for the default`)
      const forbidden = without.find(([characters]) => new RegExp(`[${characters}]`).test(raw))
      if (forbidden !== undefined) throw new ConfigError(`${name} must not contain ${forbidden[1]}`)
      return raw
    }
  }
}

/**
 * A string that matches `pattern`, said as `rule`. In the environment, empty is unset, but for a
 * secret, which is judged (an empty token is a mistake); a secret's message gives its length only.
 */
export function text<D extends string | undefined = undefined> (spec: Common<D> & { pattern?: RegExp, rule?: string }): OptionSetting<string, D> {
  const { secret, rule } = spec
  const schema = Type.String({ pattern: spec.pattern?.source, default: spec.default })
  const matches = (value: unknown): boolean => Value.Check(schema, value)
  return {
    schema,
    default: spec.default as D,
    env: spec.env,
    check: (name, value) => {
      if (matches(value)) return value as string
      throw optionError(name, rule as string, shown(value, secret))
    },
    read: (name, raw) => {
      if (raw === undefined || (raw === '' && secret !== true)) return undefined
      if (matches(raw)) return raw
      const got = secret === true ? `, got ${raw.length} characters${/\s/.test(raw) ? ' with spaces' : ''}` : ''
      throw new ConfigError(`${name} must be ${rule as string}${got}`)
    }
  }
}

/** PEM text as an option; in the environment, the path of a PEM file, read at start. */
export function pemFile (spec: { env: string }): OptionSetting<string, undefined> {
  return {
    ...text({ pattern: /-----BEGIN /, rule: 'PEM text (the file\'s contents, not its path)', secret: true }),
    env: spec.env,
    path: true,
    read: (name, path) => {
      if (blank(path)) return undefined
      try {
        return readFileSync(path, 'utf8')
      } catch (error) {
        throw new ConfigError(`${name}=${path} cannot be read (${(error as NodeJS.ErrnoException).code}): it must name a PEM file this process may read`)
      }
    }
  }
}

const REDIS_URL = /^rediss?:\/\/\S+$/

/** A redis:// or rediss:// URL. The environment's messages never show it: it can hold a password. */
export function redisUrl (spec: { env: string }): OptionSetting<string, undefined> {
  return {
    ...text({ pattern: REDIS_URL, rule: 'a redis:// or rediss:// URL' }),
    env: spec.env,
    read: (name, raw) => {
      if (blank(raw)) return undefined
      if (REDIS_URL.test(raw)) {
        if (URL.canParse(raw)) return raw
        throw new ConfigError(`${name} is a redis:// URL that cannot be read: check its host and port, and percent-encode any @, : or / in its password`)
      }
      const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw)?.[1]
      throw new ConfigError(`${name} must be a redis:// or rediss:// URL such as redis://127.0.0.1:6379/0, got ${scheme === undefined ? 'no scheme' : `a ${scheme}:// URL`}`)
    }
  }
}

const PUBLIC_URL = /^https?:\/\/[^\s/?#@]+(\/[^\s?#]*)?$/i

/** An http:// or https:// URL, with a path or none, no query, fragment or user, in the environment only; kept without its trailing slashes. */
export function publicUrl (spec: { env: string }): Setting<string, undefined> {
  return {
    schema: Type.String({ pattern: PUBLIC_URL.source }),
    default: undefined,
    env: spec.env,
    read: (name, raw) => {
      if (blank(raw)) return undefined
      if (PUBLIC_URL.test(raw) && URL.canParse(raw)) return raw.replace(/\/+$/, '')
      // Never a password in the message: learners' URLs carry none.
      throw new ConfigError(`${name} must be an http:// or https:// URL such as http://192.168.1.20:8080, got ${JSON.stringify(raw.replace(/\/\/[^/]*@/, '//…@'))}`)
    }
  }
}

/** Sentinels' `host:port` (IPv6 `[addr]:port`): an array as an option, separated by commas in the environment. */
export function sentinels (spec: { env: string }): OptionSetting<string[], undefined> {
  const schema = Type.Array(Type.String(), { minItems: 1 })
  const valid = (entries: string[]): boolean => entries.every(entry => sentinelAddress(entry) !== undefined)
  return {
    schema,
    default: undefined,
    env: spec.env,
    check: (name, value) => {
      if (Value.Check(schema, value) && valid(value)) return value
      throw optionError(name, 'a non-empty array of "host:port" strings', shown(value))
    },
    read: (name, raw) => {
      if (blank(raw)) return undefined
      const entries = raw.split(',').map(entry => entry.trim())
      if (valid(entries)) return entries
      throw new ConfigError(`${name} must be the sentinels' host:port separated by commas, such as 10.0.0.1:26379,10.0.0.2:26379, got ${JSON.stringify(raw)}`)
    }
  }
}

/** An object of the host's own (a store): taken as it is. */
export function given<T> (): OptionSetting<T, undefined> {
  return { schema: Type.Unsafe<T>({}), default: undefined, check: (_name, value) => value as T }
}

/** An AbortSignal, passed by the host. */
export function abortSignal (): OptionSetting<AbortSignal, undefined> {
  return {
    schema: Type.Unsafe<AbortSignal>({}),
    default: undefined,
    check: (name, value) => {
      if (value instanceof AbortSignal) return value
      throw optionError(name, 'an AbortSignal', value instanceof AbortController ? 'an AbortController (pass its signal)' : typeof value)
    }
  }
}

/** Ids of the deliberate defects (src/domain/defects/): an array as an option, separated by commas in the environment. */
export function defectIds (spec: { env: string }): OptionSetting<string[], undefined> {
  const schema = Type.Array(Type.String())
  return {
    schema,
    default: undefined,
    env: spec.env,
    check: (name, value) => {
      if (!Value.Check(schema, value)) throw optionError(name, 'an array of defect ids', shown(value))
      const problem = checkDefectIds(value)
      if (problem !== undefined) throw optionError(name, 'an array of defect ids', `${shown(value)}: ${problem}`)
      return value
    },
    read: (name, raw) => {
      if (blank(raw)) return undefined
      const ids = raw.split(',').map(id => id.trim())
      const problem = checkDefectIds(ids)
      if (problem !== undefined) throw new ConfigError(`${name} must be defect ids separated by commas: ${problem}`)
      return ids
    }
  }
}
