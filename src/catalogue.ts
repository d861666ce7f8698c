// The challenge catalogue: which challenges exist and which request passes each.
// Plain data and lookups; it knows nothing of HTTP or Fastify.

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
}

/** Every challenge, sorted by id. A session's progress is a bitmask over this array's indexes. */
export const challenges: readonly Challenge[] = Object.freeze([
  { id: 1, referenceName: 'CREATE_NEW_CHALLENGER', name: 'POST /challenger (201)', description: 'Create a session with POST /challenger and no X-CHALLENGER header; the response\'s X-CHALLENGER header holds your session id.', trigger: 'POST /challenger created' },
  { id: 2, referenceName: 'GET_CHALLENGES', name: 'GET /challenges (200)', description: 'List the challenges with GET /challenges, sending your X-CHALLENGER header.', trigger: 'GET /challenges listed' },
  { id: 25, referenceName: 'DELETE_HEARTBEAT_405', name: 'DELETE /heartbeat (405)', description: 'Send DELETE to /heartbeat: the method is not allowed.', trigger: 'DELETE /heartbeat' },
  { id: 26, referenceName: 'PATCH_HEARTBEAT_500', name: 'PATCH /heartbeat (500)', description: 'Send PATCH to /heartbeat: the server fails with an internal error.', trigger: 'PATCH /heartbeat' },
  { id: 27, referenceName: 'TRACE_HEARTBEAT_501', name: 'TRACE /heartbeat (501)', description: 'Send TRACE to /heartbeat: the method is not implemented.', trigger: 'TRACE /heartbeat' },
  { id: 28, referenceName: 'GET_HEARTBEAT_204', name: 'GET /heartbeat (204)', description: 'Send GET to /heartbeat: the server is running and answers with no content.', trigger: 'GET /heartbeat' },
  { id: 29, referenceName: 'CREATE_SECRET_TOKEN_401', name: 'POST /secret/token (401)', description: 'Ask for a token with POST /secret/token and wrong Basic credentials.', trigger: 'POST /secret/token refused' },
  { id: 30, referenceName: 'CREATE_SECRET_TOKEN_201', name: 'POST /secret/token (201)', description: 'Get a token with POST /secret/token and the Basic credentials admin:password; it comes back in X-AUTH-TOKEN.', trigger: 'POST /secret/token issued' },
  { id: 31, referenceName: 'GET_SECRET_NOTE_403', name: 'GET /secret/note (403)', description: 'Read the secret note with an X-AUTH-TOKEN that is not your session\'s token.', trigger: 'GET /secret/note wrong-token' },
  { id: 32, referenceName: 'GET_SECRET_NOTE_401', name: 'GET /secret/note (401)', description: 'Read the secret note without any X-AUTH-TOKEN header.', trigger: 'GET /secret/note no-token' },
  { id: 33, referenceName: 'GET_SECRET_NOTE_200', name: 'GET /secret/note (200)', description: 'Read the secret note with your session\'s token in X-AUTH-TOKEN.', trigger: 'GET /secret/note x-auth-token' },
  { id: 34, referenceName: 'POST_SECRET_NOTE_200', name: 'POST /secret/note (200)', description: 'Write the secret note with your session\'s token in X-AUTH-TOKEN and a JSON body {"note": "..."}.', trigger: 'POST /secret/note x-auth-token' },
  { id: 35, referenceName: 'POST_SECRET_NOTE_401', name: 'POST /secret/note (401)', description: 'Write the secret note without any X-AUTH-TOKEN header.', trigger: 'POST /secret/note no-token' },
  { id: 36, referenceName: 'POST_SECRET_NOTE_403', name: 'POST /secret/note (403)', description: 'Write the secret note with an X-AUTH-TOKEN that is not your session\'s token.', trigger: 'POST /secret/note wrong-token' },
  { id: 37, referenceName: 'GET_SECRET_NOTE_BEARER_200', name: 'GET /secret/note (Bearer)', description: 'Read the secret note with your token sent as Authorization: Bearer <token>.', trigger: 'GET /secret/note bearer' },
  { id: 38, referenceName: 'POST_SECRET_NOTE_BEARER_200', name: 'POST /secret/note (Bearer)', description: 'Write the secret note with your token sent as Authorization: Bearer <token>.', trigger: 'POST /secret/note bearer' },
  { id: 40, referenceName: 'OVERRIDE_DELETE_HEARTBEAT_405', name: 'POST /heartbeat as DELETE (405)', description: 'Send POST to /heartbeat with X-HTTP-Method-Override: DELETE.', trigger: 'POST /heartbeat as DELETE' },
  { id: 41, referenceName: 'OVERRIDE_PATCH_HEARTBEAT_500', name: 'POST /heartbeat as PATCH (500)', description: 'Send POST to /heartbeat with X-HTTP-Method-Override: PATCH.', trigger: 'POST /heartbeat as PATCH' },
  { id: 42, referenceName: 'OVERRIDE_TRACE_HEARTBEAT_501', name: 'POST /heartbeat as TRACE (501)', description: 'Send POST to /heartbeat with X-HTTP-Method-Override: TRACE.', trigger: 'POST /heartbeat as TRACE' }
].map(c => Object.freeze(c as Challenge)))

/**
 * The reference's other challenges (its todo-list API, restoring progress, ...), by their enum names:
 * every name of its CHALLENGE enum from 2020 to today, deprecated ones included. A session saved
 * from the reference names them in its status map: a restore here accepts and ignores them.
 */
export const OTHER_REFERENCE_NAMES: readonly string[] = Object.freeze([
  'DELETE_ALL_TODOS',
  'DELETE_A_TODO',
  'GET_ACCEPT_ANY_DEFAULT_JSON',
  'GET_ACCEPT_JSON',
  'GET_ACCEPT_JSON_Q_PREFERRED',
  'GET_ACCEPT_Q_REJECTS_ALL_406',
  'GET_ACCEPT_STRUCTURED_XML_WILDCARD',
  'GET_ACCEPT_TEXT_XML',
  'GET_ACCEPT_VENDOR_XML',
  'GET_ACCEPT_XML',
  'GET_ACCEPT_XML_PREFERRED',
  'GET_ACCEPT_XML_Q_PREFERRED',
  'GET_HEAD_TODOS',
  'GET_JSON_BY_DEFAULT_NO_ACCEPT',
  'GET_RESTORABLE_CHALLENGER_PROGRESS_STATUS',
  'GET_RESTORABLE_TODOS',
  'GET_RESTORE_EXISTING_CHALLENGER',
  'GET_TODO',
  'GET_TODOS',
  'GET_TODOS_EXPORT_CSV_CONTENT_DISPOSITION',
  'GET_TODOS_EXPORT_HTML_CONTENT_DISPOSITION',
  'GET_TODOS_EXPORT_TSV_CONTENT_DISPOSITION',
  'GET_TODOS_FILTERED',
  'GET_TODOS_FILTERED_AND_SORTED',
  'GET_TODOS_FILTERED_DESCRIPTION_REGEX',
  'GET_TODOS_FILTERED_DESCRIPTION_WILDCARD',
  'GET_TODOS_FILTERED_ID_GREATER_THAN',
  'GET_TODOS_FILTERED_ID_LESS_THAN',
  'GET_TODOS_FILTERED_ID_SINGLE_RESULT',
  'GET_TODOS_NOT_PLURAL_404',
  'GET_TODOS_PAGINATED_FILTERED',
  'GET_TODOS_PAGINATED_LIMIT',
  'GET_TODOS_PAGINATED_LIMIT_OFFSET',
  'GET_TODOS_PAGINATED_LIMIT_TOO_HIGH',
  'GET_TODOS_PAGINATED_SORTED',
  'GET_TODOS_SORTED_ASCENDING',
  'GET_TODOS_SORTED_DESCENDING',
  'GET_TODOS_SORTED_MULTIPLE_FIELDS',
  'GET_TODO_404',
  'GET_TODO_ACCEPT_TEXT_CALENDAR',
  'GET_UNSUPPORTED_ACCEPT_406',
  'GET_UNSUPPORTED_STRUCTURED_JSON_ACCEPT_406',
  'OPTIONS_TODOS',
  'PATCH_TODOS_JSON_PATCH_200',
  'PATCH_TODOS_MERGE_PATCH_200',
  'PATCH_TODOS_PARTIAL_200',
  'POST_ALL_TODOS',
  'POST_CREATE_JSON',
  'POST_CREATE_JSON_ACCEPT_XML',
  'POST_CREATE_VENDOR_XML',
  'POST_CREATE_XML',
  'POST_CREATE_XML_ACCEPT_JSON',
  'POST_MAX_OUT_TITLE_DESCRIPTION_LENGTH',
  'POST_RESTORE_EXISTING_CHALLENGER',
  'POST_TODOS',
  'POST_TODOS_404',
  'POST_TODOS_415',
  'POST_TODOS_BAD_DONE_STATUS',
  'POST_TODOS_INVALID_EXTRA_FIELD',
  'POST_TODOS_TOO_LONG_DESCRIPTION_LENGTH',
  'POST_TODOS_TOO_LONG_PAYLOAD_SIZE',
  'POST_TODOS_TOO_LONG_TITLE_LENGTH',
  'POST_UPDATE_TODO',
  'PUT_CHALLENGER_GUID_MISMATCH_409',
  'PUT_NEW_RESTORED_CHALLENGER_PROGRESS_STATUS',
  'PUT_RESTORABLE_CHALLENGER_PROGRESS_STATUS',
  'PUT_RESTORABLE_TODOS',
  'PUT_TODOS_400',
  'PUT_TODOS_400_NO_AMEND_ID',
  'PUT_TODOS_422',
  'PUT_TODOS_422_NO_AMEND_ID',
  'PUT_TODOS_BODY_ID_200',
  'PUT_TODOS_FULL_200',
  'PUT_TODOS_ID_NOT_FOUND_404',
  'PUT_TODOS_ID_NO_BODY_ID_200',
  'PUT_TODOS_MISSING_TITLE_400',
  'PUT_TODOS_MISSING_TITLE_422',
  'PUT_TODOS_NO_ID_422',
  'PUT_TODOS_PARTIAL_200',
  'QUERY_TODOS_FILTERED',
  'QUERY_TODOS_JSONPATH_FILTERED',
  'QUERY_TODOS_STRUCTURED_JSON_FILTERED',
  'X_CHALLENGER_TOO_LONG_431'
])

const bitByTrigger = new Map<string, number>(challenges.map((c, index) => [c.trigger, 1 << index]))

/** The progress bit a trigger sets, or 0 when the trigger passes no challenge. */
export function bitFor (trigger: string): number {
  return bitByTrigger.get(trigger) ?? 0
}

/** Whether the challenge at `index` of `challenges` is passed in `progress`. */
export function isPassed (progress: number, index: number): boolean {
  return (progress & (1 << index)) !== 0
}

/** The id as the reference writes it in a status map: two digits, `01`. */
export function paddedId (id: number): string {
  return String(id).padStart(2, '0')
}

/** Progress as the reference's status map: every catalogue id, passed or not. */
export function statusMap (progress: number): Record<string, boolean> {
  const map: Record<string, boolean> = {}
  challenges.forEach((c, index) => { map[paddedId(c.id)] = isPassed(progress, index) })
  return map
}

/**
 * The progress a status map stands for, keyed by id (`01`) or by the reference's name
 * (`CREATE_NEW_CHALLENGER`); challenges it leaves out count as not passed.
 */
export function progressFrom (map: Record<string, boolean | undefined>): number {
  let progress = 0
  challenges.forEach((c, index) => {
    if (map[paddedId(c.id)] === true || map[c.referenceName] === true) progress |= 1 << index
  })
  return progress
}
