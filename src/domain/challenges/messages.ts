// The error body, and messages that more than one place writes, so that a learner reads the same
// words wherever the answer is made.

/** The one shape of every error answer's body. */
export interface ErrorBody {
  errorMessages: string[]
}

export function errorBody (message: string): ErrorBody {
  return { errorMessages: [message] }
}

/** The hint for a path that is near a real one (the 404's message, the journal): `did you mean /heartbeat?`. */
export function didYouMean (path: string): string {
  return `did you mean ${path}?`
}

/**
 * The 404 of a path (or a method on it) that the service does not have; with `nearPath` (see
 * plugins/errors.ts), the real path nearest it: `No resource at GET /heartbeats; did you mean /heartbeat?`.
 */
export function notFoundMessage (request: { method: string, url: string, nearPath?: string | null }): string {
  const near = request.nearPath ?? null
  return `No resource at ${request.method} ${request.url}${near === null ? '' : `; ${didYouMean(near)}`}`
}

/** The 401 for a request that names no live session, on every route that needs one. */
export const NAME_A_SESSION = 'The X-CHALLENGER header must name a session: create one with POST /challenger'
