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
