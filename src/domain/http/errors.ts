// The service's own errors, each with a stable code (`error.code`), all listed here. The codes are
// for logs and for a host that embeds the app; a learner never sees one: the error handler
// (plugins/errors.ts) answers with the message alone, in the service's one error body. Fastify's
// own errors keep their FST_ERR_ codes. Made with @fastify/error, as Fastify makes its own; each
// keeps the name and constructor it had before the codes, so a host's checks still hold.
import createError from '@fastify/error'

/** Every code, by what it means. */
export const ERROR_CODES = Object.freeze({
  /** 503: the session store cannot be reached; a retry may succeed. */
  storeUnavailable: 'APICH_STORE_UNAVAILABLE',
  /** 400: a cursor of GET /admin/sessions that the store did not make. */
  badCursor: 'APICH_BAD_CURSOR',
  /** 400: an XML body that is not well-formed, or has a DOCTYPE. */
  badXmlBody: 'APICH_BAD_XML_BODY',
  /** At start-up: an environment variable the server cannot use. */
  config: 'APICH_CONFIG',
  /** At registration: an option of the app's plugin it cannot use. */
  option: 'APICH_OPTION',
  /** At load: the challenge list breaks a rule of the catalogue (ids, bits, triggers, near misses). */
  catalogue: 'APICH_CATALOGUE',
  /** At registration: a route asked for the bit of a trigger that no challenge has. */
  unknownTrigger: 'APICH_UNKNOWN_TRIGGER',
  /** At start-up: a challenge whose trigger no route reports, so nobody could pass it. */
  unreachableChallenge: 'APICH_UNREACHABLE_CHALLENGE'
} as const)

/** The store cannot be reached: the request is answered 503 and may be retried. */
export class StoreUnavailableError extends createError(ERROR_CODES.storeUnavailable, 'The session store is unavailable; try again shortly', 503) {
  override name = 'StoreUnavailableError'
  constructor (cause: unknown) {
    super({ cause })
  }
}

/** A cursor that this store did not make (or cannot read any more): the request is answered 400. */
export class BadCursorError extends createError(ERROR_CODES.badCursor, 'The cursor is not one that GET /admin/sessions gave: start again without it', 400) {
  override name = 'BadCursorError'
}

/** An XML body refused (400), with the parser's message for the learner. */
export class BadXmlBodyError extends createError<typeof ERROR_CODES.badXmlBody, 400, [message: string, options: { cause: unknown }]>(ERROR_CODES.badXmlBody, '%s', 400) {
  override name = 'BadXmlBodyError'
}

// The errors below are thrown before any request: no status code (0 leaves it out).

/** An environment variable the server cannot use: it says so on stderr and does not start. */
export class ConfigError extends createError<typeof ERROR_CODES.config, [message: string]>(ERROR_CODES.config, '%s', 0) {
  override name = 'ConfigError'
}

/** An option of the app's plugin it cannot use; a TypeError, as it always was. */
export class OptionError extends createError<typeof ERROR_CODES.option, [message: string]>(ERROR_CODES.option, '%s', 0, TypeError) {
  override name = 'TypeError'
}

/** The challenge list breaks a rule of the catalogue: the service does not load. */
export class CatalogueError extends createError<typeof ERROR_CODES.catalogue, [message: string]>(ERROR_CODES.catalogue, 'catalogue: %s', 0) {
  override name = 'Error'
}

/** A route asked for the bit of a trigger that no challenge has: its registration fails. */
export class UnknownTriggerError extends createError<typeof ERROR_CODES.unknownTrigger, [trigger: string]>(ERROR_CODES.unknownTrigger, 'catalogue: no challenge is passed by %j', 0) {
  override name = 'Error'
}

/** Challenges no route reports (their trigger, their id): the app refuses to start, naming them. */
export class UnreachableChallengeError extends createError<typeof ERROR_CODES.unreachableChallenge, [list: string]>(ERROR_CODES.unreachableChallenge, 'api-challenges: no route reports %s', 0) {
  override name = 'Error'
}
