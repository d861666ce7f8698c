// The challenges, as data: what each one is, the request that passes it (its trigger) and its fixed
// bit in a session's progress. src/catalogue.ts checks the list and answers questions about it.
// To add a challenge, see "Add a challenge" in the README.

/**
 * What a route reports after it has answered a request, in the form
 * `<METHOD> <resource> <outcome>`; the catalogue maps some of them to a challenge.
 * HEAD never appears here, so a HEAD request passes nothing ("HEAD is not GET").
 */
export type Trigger =
  | 'POST /challenger created'
  | 'GET /challenges listed'
  | 'DELETE /heartbeat'
  | 'PATCH /heartbeat'
  | 'TRACE /heartbeat'
  | 'GET /heartbeat'
  | 'POST /heartbeat as DELETE'
  | 'POST /heartbeat as PATCH'
  | 'POST /heartbeat as TRACE'
  | 'POST /secret/token refused'
  | 'POST /secret/token issued'
  | 'GET /secret/note wrong-token'
  | 'GET /secret/note no-token'
  | 'GET /secret/note x-auth-token'
  | 'GET /secret/note bearer'
  | 'POST /secret/note wrong-token'
  | 'POST /secret/note no-token'
  | 'POST /secret/note x-auth-token'
  | 'POST /secret/note bearer'

export interface Challenge {
  /** The reference's v1 number. */
  readonly id: number
  /** The name of the same challenge in the reference's CHALLENGE enum, as its saved sessions key it. */
  readonly referenceName: string
  readonly name: string
  readonly description: string
  readonly trigger: Trigger
  /**
   * The challenge's place in a session's progress (0 to 30), fixed for ever: stored progress, in
   * memory or in Redis, keeps its meaning whatever is added or reordered. A new challenge takes a
   * bit never used before.
   */
  readonly bit: number
}

/** Every challenge, sorted by id. A session's progress is a bitmask of their `bit`s. */
export const challenges: readonly Challenge[] = Object.freeze([
  { id: 1, referenceName: 'CREATE_NEW_CHALLENGER', name: 'POST /challenger (201)', description: 'Create a session with POST /challenger and no X-CHALLENGER header; the response\'s X-CHALLENGER header holds your session id.', trigger: 'POST /challenger created', bit: 0 },
  { id: 2, referenceName: 'GET_CHALLENGES', name: 'GET /challenges (200)', description: 'List the challenges with GET /challenges, sending your X-CHALLENGER header.', trigger: 'GET /challenges listed', bit: 1 },
  { id: 25, referenceName: 'DELETE_HEARTBEAT_405', name: 'DELETE /heartbeat (405)', description: 'Send DELETE to /heartbeat: the method is not allowed.', trigger: 'DELETE /heartbeat', bit: 2 },
  { id: 26, referenceName: 'PATCH_HEARTBEAT_500', name: 'PATCH /heartbeat (500)', description: 'Send PATCH to /heartbeat: the server fails with an internal error.', trigger: 'PATCH /heartbeat', bit: 3 },
  { id: 27, referenceName: 'TRACE_HEARTBEAT_501', name: 'TRACE /heartbeat (501)', description: 'Send TRACE to /heartbeat: the method is not implemented.', trigger: 'TRACE /heartbeat', bit: 4 },
  { id: 28, referenceName: 'GET_HEARTBEAT_204', name: 'GET /heartbeat (204)', description: 'Send GET to /heartbeat: the server is running and answers with no content.', trigger: 'GET /heartbeat', bit: 5 },
  { id: 29, referenceName: 'CREATE_SECRET_TOKEN_401', name: 'POST /secret/token (401)', description: 'Ask for a token with POST /secret/token and wrong Basic credentials.', trigger: 'POST /secret/token refused', bit: 6 },
  { id: 30, referenceName: 'CREATE_SECRET_TOKEN_201', name: 'POST /secret/token (201)', description: 'Get a token with POST /secret/token and the Basic credentials admin:password; it comes back in X-AUTH-TOKEN.', trigger: 'POST /secret/token issued', bit: 7 },
  { id: 31, referenceName: 'GET_SECRET_NOTE_403', name: 'GET /secret/note (403)', description: 'Read the secret note with an X-AUTH-TOKEN that is not your session\'s token.', trigger: 'GET /secret/note wrong-token', bit: 8 },
  { id: 32, referenceName: 'GET_SECRET_NOTE_401', name: 'GET /secret/note (401)', description: 'Read the secret note without any X-AUTH-TOKEN header.', trigger: 'GET /secret/note no-token', bit: 9 },
  { id: 33, referenceName: 'GET_SECRET_NOTE_200', name: 'GET /secret/note (200)', description: 'Read the secret note with your session\'s token in X-AUTH-TOKEN.', trigger: 'GET /secret/note x-auth-token', bit: 10 },
  { id: 34, referenceName: 'POST_SECRET_NOTE_200', name: 'POST /secret/note (200)', description: 'Write the secret note with your session\'s token in X-AUTH-TOKEN and a JSON body {"note": "..."}.', trigger: 'POST /secret/note x-auth-token', bit: 11 },
  { id: 35, referenceName: 'POST_SECRET_NOTE_401', name: 'POST /secret/note (401)', description: 'Write the secret note without any X-AUTH-TOKEN header.', trigger: 'POST /secret/note no-token', bit: 12 },
  { id: 36, referenceName: 'POST_SECRET_NOTE_403', name: 'POST /secret/note (403)', description: 'Write the secret note with an X-AUTH-TOKEN that is not your session\'s token.', trigger: 'POST /secret/note wrong-token', bit: 13 },
  { id: 37, referenceName: 'GET_SECRET_NOTE_BEARER_200', name: 'GET /secret/note (Bearer)', description: 'Read the secret note with your token sent as Authorization: Bearer <token>.', trigger: 'GET /secret/note bearer', bit: 14 },
  { id: 38, referenceName: 'POST_SECRET_NOTE_BEARER_200', name: 'POST /secret/note (Bearer)', description: 'Write the secret note with your token sent as Authorization: Bearer <token>.', trigger: 'POST /secret/note bearer', bit: 15 },
  { id: 40, referenceName: 'OVERRIDE_DELETE_HEARTBEAT_405', name: 'POST /heartbeat as DELETE (405)', description: 'Send POST to /heartbeat with X-HTTP-Method-Override: DELETE.', trigger: 'POST /heartbeat as DELETE', bit: 16 },
  { id: 41, referenceName: 'OVERRIDE_PATCH_HEARTBEAT_500', name: 'POST /heartbeat as PATCH (500)', description: 'Send POST to /heartbeat with X-HTTP-Method-Override: PATCH.', trigger: 'POST /heartbeat as PATCH', bit: 17 },
  { id: 42, referenceName: 'OVERRIDE_TRACE_HEARTBEAT_501', name: 'POST /heartbeat as TRACE (501)', description: 'Send POST to /heartbeat with X-HTTP-Method-Override: TRACE.', trigger: 'POST /heartbeat as TRACE', bit: 18 }
].map(c => Object.freeze(c as Challenge)))
