// The error body, and messages that more than one place writes, so that a learner reads the same
// words wherever the answer is made.

/** The one shape of every error answer's body. */
export interface ErrorBody {
  errorMessages: string[]
}

export function errorBody (message: string): ErrorBody {
  return { errorMessages: [message] }
}

/** The 404 of a path (or a method on it) that the service does not have. */
export function notFoundMessage (request: { method: string, url: string }): string {
  return `No resource at ${request.method} ${request.url}`
}

/** The 401 for a request that names no live session, on every route that needs one. */
export const NAME_A_SESSION = 'The X-CHALLENGER header must name a session: create one with POST /challenger'
