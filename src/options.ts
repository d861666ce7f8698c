// The service's options: one interface, its defaults, and the checks that make a bad
// option fail at registration with a clear message.
import type { ChallengerStore } from './store.js'

export interface ApiChallengesOptions {
  /** Basic credentials that POST /secret/token accepts. Default `admin` / `password`, as the reference. */
  username?: string
  password?: string
  /** The realm named in `WWW-Authenticate` when the credentials are refused. */
  realm?: string
  /** Notes longer than this many characters (Unicode code points) are truncated when stored. Default 100. */
  noteMaxLength?: number
  /** Largest note body accepted, in bytes; a larger one is refused with 413. Default 16 KiB. */
  bodyLimit?: number
  /** Where sessions live. Default: a new in-memory store for each registration, closed with the app. */
  store?: ChallengerStore
}

export type ResolvedOptions = Required<Omit<ApiChallengesOptions, 'store'>> & { store?: ChallengerStore }

export const defaults = Object.freeze({
  username: 'admin',
  password: 'password',
  realm: 'api-challenges',
  noteMaxLength: 100,
  bodyLimit: 16 * 1024
})

function positiveInteger (name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(`api-challenges: option ${name} must be a positive integer, got ${JSON.stringify(value)}`)
  }
  return value
}

function text (name: string, value: unknown, pattern: RegExp, rule: string): string {
  if (typeof value !== 'string' || !pattern.test(value)) {
    throw new TypeError(`api-challenges: option ${name} must be ${rule}, got ${JSON.stringify(value)}`)
  }
  return value
}

/** The caller's options over the defaults, checked; the caller's object is left as it was. */
export function resolveOptions (options: ApiChallengesOptions = {}): ResolvedOptions {
  const merged = { ...defaults, ...options }
  return {
    // A colon cannot be part of a Basic user-id (RFC 7617).
    username: text('username', merged.username, /^[^:\r\n]+$/, 'a non-empty string without ":" or line breaks'),
    password: text('password', merged.password, /^[^\r\n]+$/, 'a non-empty string without line breaks'),
    realm: text('realm', merged.realm, /^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/, 'printable ASCII without quotes or backslashes'),
    noteMaxLength: positiveInteger('noteMaxLength', merged.noteMaxLength),
    bodyLimit: positiveInteger('bodyLimit', merged.bodyLimit),
    store: merged.store
  }
}
