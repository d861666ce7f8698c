// The error body and messages written in more than one place, so that a learner reads the same words.

/** The one shape of every error answer's body. */
export interface ErrorBody {
  errorMessages: string[]
}

export function errorBody (message: string): ErrorBody {
  return { errorMessages: [message] }
}

/** `did you mean /heartbeat?`, in the 404's message and the journal. */
export function didYouMean (path: string): string {
  return `did you mean ${path}?`
}

/** The 404's message: `No resource at GET /heartbeats; did you mean /heartbeat?`. */
export function notFoundMessage (request: { method: string, url: string, nearPath?: string | null }): string {
  const near = request.nearPath ?? null
  return `No resource at ${request.method} ${request.url}${near === null ? '' : `; ${didYouMean(near)}`}`
}

/** The 401 for a request that names no live session, on every route that needs one. */
export const NAME_A_SESSION = 'The X-CHALLENGER header must name a session: create one with POST /challenger'

/** A duration as a learner reads it: `10 minutes`, `90 seconds`, `1 hour`, `1500 ms`. */
export function duration (ms: number): string {
  const [count, unit] = ms % 3_600_000 === 0
    ? [ms / 3_600_000, 'hour']
    : ms % 60_000 === 0 ? [ms / 60_000, 'minute'] : ms % 1000 === 0 ? [ms / 1000, 'second'] : [ms, 'ms']
  return unit === 'ms' ? `${count} ms` : `${count} ${unit}${count === 1 ? '' : 's'}`
}

export interface ExpiredSession {
  /** The session's id, as the store issued it. */
  guid: string
  /** How long a session lasts without a request. */
  idleMs: number
  /** The API's base the request came to ('', '/api', under a host's prefix). */
  base: string
  /** The session's progress page. */
  page: string
}

/** The answer to a request naming a session that expired recently: that it expired, and how to get it back. */
export function expiredMessage ({ guid, idleMs, base, page }: ExpiredSession): string {
  return `Session ${JSON.stringify(guid)} has expired: a session ends after ${duration(idleMs)} without a request (sooner, when the server is full). ` +
    `Restore it with PUT ${base}/challenger/${guid} and the JSON saved from GET ${base}/challenger/${guid} ` +
    `(its progress page, ${page}, keeps that JSON in the browser and restores it with one click), ` +
    `or create a new session with POST ${base}/challenger`
}
