// The service's own errors, each with a stable code for logs and hosts; each keeps its old name and base class.
import createError from '@fastify/error'

export const ERROR_CODES = Object.freeze({
  storeUnavailable: 'APICH_STORE_UNAVAILABLE',
  sessionsFull: 'APICH_SESSIONS_FULL',
  badCursor: 'APICH_BAD_CURSOR',
  badXmlBody: 'APICH_BAD_XML_BODY',
  config: 'APICH_CONFIG',
  option: 'APICH_OPTION',
  catalogue: 'APICH_CATALOGUE',
  unknownTrigger: 'APICH_UNKNOWN_TRIGGER',
  unreachableChallenge: 'APICH_UNREACHABLE_CHALLENGE'
} as const)

/** 503: the session store cannot be reached; a retry may succeed. */
export class StoreUnavailableError extends createError(ERROR_CODES.storeUnavailable, 'The session store is unavailable; try again shortly', 503) {
  override name = 'StoreUnavailableError'
  constructor (cause: unknown) {
    super({ cause })
  }
}

/** 503: MAX_SESSIONS live sessions, each at work (sessions/worth.ts), so none makes room for a new one. */
export class SessionsFullError extends createError(ERROR_CODES.sessionsFull, 'The server holds as many sessions as it may, every one in use: try again in a few minutes, once one has ended', 503) {
  override name = 'SessionsFullError'
}

/** 400: a cursor of GET /admin/sessions that this store did not make (or can no longer read). */
export class BadCursorError extends createError(ERROR_CODES.badCursor, 'The cursor is not one that GET /admin/sessions gave: start again without it', 400) {
  override name = 'BadCursorError'
}

/** 400: an XML body not well-formed or with a DOCTYPE, with the parser's message. */
export class BadXmlBodyError extends createError<typeof ERROR_CODES.badXmlBody, 400, [message: string, options: { cause: unknown }]>(ERROR_CODES.badXmlBody, '%s', 400) {
  override name = 'BadXmlBodyError'
}

// The errors below are thrown before any request: no status code (0 leaves it out).

/** At start-up: an environment variable the server cannot use. */
export class ConfigError extends createError<typeof ERROR_CODES.config, [message: string]>(ERROR_CODES.config, '%s', 0) {
  override name = 'ConfigError'
}

/** At registration: an option of the app's plugin it cannot use (a TypeError, as it always was). */
export class OptionError extends createError<typeof ERROR_CODES.option, [message: string]>(ERROR_CODES.option, '%s', 0, TypeError) {
  override name = 'TypeError'
}

/** At load: the challenge list breaks a rule of the catalogue. */
export class CatalogueError extends createError<typeof ERROR_CODES.catalogue, [message: string]>(ERROR_CODES.catalogue, 'catalogue: %s', 0) {
  override name = 'Error'
}

/** At registration: a route asked for the bit of a trigger no challenge has. */
export class UnknownTriggerError extends createError<typeof ERROR_CODES.unknownTrigger, [trigger: string]>(ERROR_CODES.unknownTrigger, 'catalogue: no challenge is passed by %j', 0) {
  override name = 'Error'
}

/** At start-up: challenges no route reports, so nobody could pass them. */
export class UnreachableChallengeError extends createError<typeof ERROR_CODES.unreachableChallenge, [list: string]>(ERROR_CODES.unreachableChallenge, 'api-challenges: no route reports %s', 0) {
  override name = 'Error'
}
