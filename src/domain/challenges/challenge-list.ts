// The challenges as data: each one's trigger (the request that passes it) and fixed progress bit.
// Adding one: its row here, its trigger in a route, its test (docs/architecture.md).
import { bareToken, headInstead, jsonNote, noToken, notAllowed, otherMethod, overrideInstead, overrideMisses, restoredInstead, restoreRefused, sameSessionMisses, tokenCameAs, wrongBearer, type NearMiss } from './near-miss-rules.js'

export type { NearMiss, RequestFacts, SeenAt, SeenRequest, TokenVerdict } from './near-miss-rules.js'

/** A challenge as its row is written below. */
interface Row {
  /** The reference's v1 number. */
  readonly id: number
  /** The name of the same challenge in the reference's CHALLENGE enum, as its saved sessions key it. */
  readonly referenceName: string
  readonly name: string
  readonly description: string
  readonly trigger: string
  /** Its place in a session's progress (0 to 30), fixed for ever so that stored progress keeps its meaning. */
  readonly bit: number
  /** How to pass it: the request line and headers to send. */
  readonly hint: string
  /** The requests that come close to it, at least one; the first that matches gives the journal's hint. */
  readonly nearMisses: readonly NearMiss[]
  /** The reference's solution page for it, `<section>/<slug>` under SOLUTIONS_BASE, if it has one. */
  readonly solution?: string
}

/** Where the reference publishes its solution pages (its canonical host, ChallengerWebGUI.CANONICAL_HOST). */
export const SOLUTIONS_BASE = 'https://apichallenges.com/apichallenges/solutions/'

// Placeholders of the hints.
const ID = '<your session id>'
const TOKEN = '<your token>'

const rows = [
  {
    id: 1,
    referenceName: 'CREATE_NEW_CHALLENGER',
    solution: 'create-session/post-challenger-201',
    name: 'POST /challenger (201)',
    description: 'Create a session with POST /challenger and no X-CHALLENGER header; the response\'s X-CHALLENGER header holds your session id.',
    trigger: 'POST /challenger created',
    bit: 0,
    hint: 'POST /challenger (without an X-CHALLENGER header)',
    nearMisses: [
      {
        when: r => r.method === 'POST' && r.namedSession,
        says: r => `Challenge 1 needs POST ${r.base}/challenger without an X-CHALLENGER header; this one named a session, so none was created`
      },
      notAllowed(1, 'POST', '/challenger')
    ]
  },
  {
    id: 2,
    referenceName: 'GET_CHALLENGES',
    solution: 'first-challenge/get-challenges-200',
    name: 'GET /challenges (200)',
    description: 'List the challenges with GET /challenges, sending your X-CHALLENGER header.',
    trigger: 'GET /challenges listed',
    bit: 1,
    hint: `GET /challenges\nX-CHALLENGER: ${ID}`,
    nearMisses: [headInstead(2), notAllowed(2, 'GET', '/challenges')]
  },
  {
    id: 25,
    referenceName: 'DELETE_HEARTBEAT_405',
    solution: 'status-codes/delete-heartbeat-405',
    name: 'DELETE /heartbeat (405)',
    description: 'Send DELETE to /heartbeat: the method is not allowed.',
    trigger: 'DELETE /heartbeat',
    bit: 2,
    hint: `DELETE /heartbeat\nX-CHALLENGER: ${ID}`,
    nearMisses: [
      overrideInstead(25, 'DELETE', 40),
      {
        when: r => r.status === 405 && r.method !== 'DELETE' && r.method !== 'POST',
        says: r => `Challenge 25 needs DELETE ${r.base}/heartbeat; ${r.method} is refused too but passes nothing`
      }
    ]
  },
  {
    id: 26,
    referenceName: 'PATCH_HEARTBEAT_500',
    solution: 'status-codes/patch-heartbeat-500',
    name: 'PATCH /heartbeat (500)',
    description: 'Send PATCH to /heartbeat: the server fails with an internal error.',
    trigger: 'PATCH /heartbeat',
    bit: 3,
    hint: `PATCH /heartbeat\nX-CHALLENGER: ${ID}`,
    nearMisses: [overrideInstead(26, 'PATCH', 41)]
  },
  {
    id: 27,
    referenceName: 'TRACE_HEARTBEAT_501',
    solution: 'status-codes/trace-heartbeat-501',
    name: 'TRACE /heartbeat (501)',
    description: 'Send TRACE to /heartbeat: the method is not implemented.',
    trigger: 'TRACE /heartbeat',
    bit: 4,
    hint: `TRACE /heartbeat\nX-CHALLENGER: ${ID}\n(with curl: a browser cannot send TRACE)`,
    nearMisses: [overrideInstead(27, 'TRACE', 42)]
  },
  {
    id: 28,
    referenceName: 'GET_HEARTBEAT_204',
    solution: 'status-codes/get-heartbeat-204',
    name: 'GET /heartbeat (204)',
    description: 'Send GET to /heartbeat: the server is running and answers with no content.',
    trigger: 'GET /heartbeat',
    bit: 5,
    hint: `GET /heartbeat\nX-CHALLENGER: ${ID}`,
    nearMisses: [headInstead(28, r => r.status !== 431)]
  },
  {
    id: 29,
    referenceName: 'CREATE_SECRET_TOKEN_401',
    solution: 'authentication/post-secret-401',
    name: 'POST /secret/token (401)',
    description: 'Ask for a token with POST /secret/token and wrong Basic credentials.',
    trigger: 'POST /secret/token refused',
    bit: 6,
    hint: `POST /secret/token\nX-CHALLENGER: ${ID}\nAuthorization: Basic <base64 of a wrong user:password>`,
    nearMisses: [
      {
        when: r => r.method === 'POST' && r.authorization === 'none',
        says: () => 'Challenge 29 needs an Authorization header with wrong Basic credentials; this request had none'
      },
      notAllowed(29, 'POST', '/secret/token')
    ]
  },
  {
    id: 30,
    referenceName: 'CREATE_SECRET_TOKEN_201',
    solution: 'authentication/post-secret-201',
    name: 'POST /secret/token (201)',
    description: 'Get a token with POST /secret/token and the Basic credentials admin:password; it comes back in X-AUTH-TOKEN.',
    trigger: 'POST /secret/token issued',
    bit: 7,
    hint: `POST /secret/token\nX-CHALLENGER: ${ID}\nAuthorization: Basic YWRtaW46cGFzc3dvcmQ= (admin:password, unless the server was given others)`,
    nearMisses: [
      {
        when: r => r.method === 'POST' && r.status === 401 && r.authorization !== 'none',
        says: () => 'Challenge 30 needs the Basic credentials the server accepts (admin:password unless it was given others); these were refused'
      },
      notAllowed(30, 'POST', '/secret/token')
    ]
  },
  {
    id: 31,
    referenceName: 'GET_SECRET_NOTE_403',
    solution: 'authorization/get-secret-note-403',
    name: 'GET /secret/note (403)',
    description: 'Read the secret note with an X-AUTH-TOKEN that is not your session\'s token.',
    trigger: 'GET /secret/note wrong-token',
    bit: 8,
    hint: `GET /secret/note\nX-CHALLENGER: ${ID}\nX-AUTH-TOKEN: <anything but your token>`,
    nearMisses: [
      wrongBearer(31, 'GET'),
      headInstead(31, r => r.token === 'wrong'),
      otherMethod(31, 'GET', r => r.token === 'wrong' && r.tokenSource === 'x-auth-token')
    ]
  },
  {
    id: 32,
    referenceName: 'GET_SECRET_NOTE_401',
    solution: 'authorization/get-secret-note-401',
    name: 'GET /secret/note (401)',
    description: 'Read the secret note without any X-AUTH-TOKEN header.',
    trigger: 'GET /secret/note no-token',
    bit: 9,
    hint: `GET /secret/note\nX-CHALLENGER: ${ID}\n(and no X-AUTH-TOKEN or Authorization header)`,
    nearMisses: [
      headInstead(32, r => r.token === 'missing'),
      otherMethod(32, 'GET', noToken)
    ]
  },
  {
    id: 33,
    referenceName: 'GET_SECRET_NOTE_200',
    solution: 'authorization/get-secret-note-200',
    name: 'GET /secret/note (200)',
    description: 'Read the secret note with your session\'s token in X-AUTH-TOKEN.',
    trigger: 'GET /secret/note x-auth-token',
    bit: 10,
    hint: `GET /secret/note\nX-CHALLENGER: ${ID}\nX-AUTH-TOKEN: ${TOKEN}`,
    nearMisses: [
      tokenCameAs(33, 'GET', 'x-auth-token'),
      headInstead(33, r => r.token === 'valid'),
      otherMethod(33, 'GET', r => r.token === 'valid' && r.tokenSource === 'x-auth-token' && r.status < 400)
    ]
  },
  {
    id: 34,
    referenceName: 'POST_SECRET_NOTE_200',
    solution: 'authorization/post-secret-note-200',
    name: 'POST /secret/note (200)',
    description: 'Write the secret note with your session\'s token in X-AUTH-TOKEN and a JSON body {"note": "..."}.',
    trigger: 'POST /secret/note x-auth-token',
    bit: 11,
    hint: `POST /secret/note\nX-CHALLENGER: ${ID}\nX-AUTH-TOKEN: ${TOKEN}\nContent-Type: application/json\n\n{"note": "my secret"}`,
    nearMisses: [
      jsonNote(34, 'x-auth-token'),
      tokenCameAs(34, 'POST', 'x-auth-token'),
      otherMethod(34, 'POST', r => r.token === 'valid' && r.tokenSource === 'x-auth-token')
    ]
  },
  {
    id: 35,
    referenceName: 'POST_SECRET_NOTE_401',
    solution: 'authorization/post-secret-note-401',
    name: 'POST /secret/note (401)',
    description: 'Write the secret note without any X-AUTH-TOKEN header.',
    trigger: 'POST /secret/note no-token',
    bit: 12,
    hint: `POST /secret/note\nX-CHALLENGER: ${ID}\n(and no X-AUTH-TOKEN or Authorization header; the body does not matter)`,
    nearMisses: [otherMethod(35, 'POST', noToken)]
  },
  {
    id: 36,
    referenceName: 'POST_SECRET_NOTE_403',
    solution: 'authorization/post-secret-note-403',
    name: 'POST /secret/note (403)',
    description: 'Write the secret note with an X-AUTH-TOKEN that is not your session\'s token.',
    trigger: 'POST /secret/note wrong-token',
    bit: 13,
    hint: `POST /secret/note\nX-CHALLENGER: ${ID}\nX-AUTH-TOKEN: <anything but your token>`,
    nearMisses: [
      wrongBearer(36, 'POST'),
      otherMethod(36, 'POST', r => r.token === 'wrong' && r.tokenSource === 'x-auth-token')
    ]
  },
  {
    id: 37,
    referenceName: 'GET_SECRET_NOTE_BEARER_200',
    solution: 'authorization/get-secret-note-bearer',
    name: 'GET /secret/note (Bearer)',
    description: 'Read the secret note with your token sent as Authorization: Bearer <token>.',
    trigger: 'GET /secret/note bearer',
    bit: 14,
    hint: `GET /secret/note\nX-CHALLENGER: ${ID}\nAuthorization: Bearer ${TOKEN}`,
    nearMisses: [
      bareToken(37, 'GET'),
      tokenCameAs(37, 'GET', 'bearer'),
      headInstead(37, r => r.token === 'valid'),
      otherMethod(37, 'GET', r => r.token === 'valid' && r.tokenSource === 'bearer' && r.status < 400)
    ]
  },
  {
    id: 38,
    referenceName: 'POST_SECRET_NOTE_BEARER_200',
    solution: 'authorization/post-secret-note-bearer',
    name: 'POST /secret/note (Bearer)',
    description: 'Write the secret note with your token sent as Authorization: Bearer <token>.',
    trigger: 'POST /secret/note bearer',
    bit: 15,
    hint: `POST /secret/note\nX-CHALLENGER: ${ID}\nAuthorization: Bearer ${TOKEN}\nContent-Type: application/json\n\n{"note": "my secret"}`,
    nearMisses: [
      jsonNote(38, 'bearer'),
      bareToken(38, 'POST'),
      tokenCameAs(38, 'POST', 'bearer'),
      otherMethod(38, 'POST', r => r.token === 'valid' && r.tokenSource === 'bearer')
    ]
  },
  {
    id: 40,
    referenceName: 'OVERRIDE_DELETE_HEARTBEAT_405',
    solution: 'method-override/post-heartbeat-as-delete-405',
    name: 'POST /heartbeat as DELETE (405)',
    description: 'Send POST to /heartbeat with X-HTTP-Method-Override: DELETE.',
    trigger: 'POST /heartbeat as DELETE',
    bit: 16,
    hint: `POST /heartbeat\nX-CHALLENGER: ${ID}\nX-HTTP-Method-Override: DELETE`,
    nearMisses: overrideMisses(40, 'DELETE')
  },
  {
    id: 41,
    referenceName: 'OVERRIDE_PATCH_HEARTBEAT_500',
    solution: 'method-override/post-heartbeat-as-patch-500',
    name: 'POST /heartbeat as PATCH (500)',
    description: 'Send POST to /heartbeat with X-HTTP-Method-Override: PATCH.',
    trigger: 'POST /heartbeat as PATCH',
    bit: 17,
    hint: `POST /heartbeat\nX-CHALLENGER: ${ID}\nX-HTTP-Method-Override: PATCH`,
    nearMisses: overrideMisses(41, 'PATCH')
  },
  {
    id: 42,
    referenceName: 'OVERRIDE_TRACE_HEARTBEAT_501',
    solution: 'method-override/post-heartbeat-as-trace-501',
    name: 'POST /heartbeat as TRACE (501)',
    description: 'Send POST to /heartbeat with X-HTTP-Method-Override: TRACE.',
    trigger: 'POST /heartbeat as TRACE',
    bit: 18,
    hint: `POST /heartbeat\nX-CHALLENGER: ${ID}\nX-HTTP-Method-Override: TRACE\n(with curl: a browser drops this header when it says TRACE)`,
    nearMisses: overrideMisses(42, 'TRACE')
  },
  // The restore challenges and the header-size one, in the reference's 2026 catalogue only: there they are
  // numbered among its todo-list challenges (34 to 36, …), ids SPEC's v1 numbering already gives to the
  // note, so here they follow its highest, 42. Their names are the 2026 catalogue's.
  {
    id: 43,
    referenceName: 'GET_RESTORABLE_CHALLENGER_PROGRESS_STATUS',
    solution: 'manage-session/get-challenger-guid-existing-x-challenger-200',
    name: 'GET /api/challenger/guid (existing X-CHALLENGER)',
    description: 'Read your session, to keep and restore later, with GET /challenger/{guid}: the guid in the URL is the one in your X-CHALLENGER header.',
    trigger: 'GET /challenger/:guid own-session',
    bit: 19,
    hint: `GET /challenger/${ID}\nX-CHALLENGER: ${ID}`,
    nearMisses: [headInstead(43, r => r.status === 200), ...sameSessionMisses(43)]
  },
  {
    id: 44,
    referenceName: 'PUT_RESTORABLE_CHALLENGER_PROGRESS_STATUS',
    solution: 'manage-session/put-challenger-guid-restore-200',
    name: 'PUT /api/challenger/guid RESTORE',
    description: 'Restore your live session with PUT /challenger/{guid} and the JSON that GET /challenger/{guid} gave: 200.',
    trigger: 'PUT /challenger/:guid restored',
    bit: 20,
    hint: `PUT /challenger/${ID}\nX-CHALLENGER: ${ID}\nContent-Type: application/json\n\n<the JSON of GET /challenger/${ID}>`,
    nearMisses: [restoreRefused(44), notAllowed(44, 'PUT', '/challenger/{guid}')]
  },
  {
    id: 45,
    referenceName: 'PUT_CHALLENGER_GUID_MISMATCH_409',
    solution: 'manage-session/put-challenger-guid-409-mismatch',
    name: 'PUT /api/challenger/guid (409) mismatch',
    description: 'Send your session\'s JSON (its xChallenger unchanged) to PUT /challenger/{another guid}: the URL and the body name different sessions.',
    trigger: 'PUT /challenger/:guid mismatch',
    bit: 21,
    hint: `PUT /challenger/<another UUID>\nX-CHALLENGER: ${ID}\nContent-Type: application/json\n\n<the JSON of GET /challenger/${ID}, its xChallenger unchanged>`,
    nearMisses: [restoredInstead(45, 'mismatch')]
  },
  {
    id: 46,
    referenceName: 'PUT_NEW_RESTORED_CHALLENGER_PROGRESS_STATUS',
    solution: 'manage-session/put-challenger-guid-create-201',
    name: 'PUT /api/challenger/guid CREATE',
    description: 'Create a session with PUT /challenger/{guid} for a guid no live session has (a new UUID, with it as the body\'s xChallenger): 201.',
    trigger: 'PUT /challenger/:guid created',
    bit: 22,
    hint: 'PUT /challenger/<a new UUID>\nContent-Type: application/json\n\n{"xChallenger": "<the same UUID>"}',
    nearMisses: [restoredInstead(46, 'create')]
  },
  {
    id: 47,
    referenceName: 'X_CHALLENGER_TOO_LONG_431',
    solution: 'status-codes/x-challenger-too-long-431',
    name: 'GET /api/heartbeat (431) X-CHALLENGER too long',
    description: 'Send GET /heartbeat with an X-CHALLENGER over 100 characters: your session id followed by extra characters, so that the challenge is tracked.',
    trigger: 'GET /heartbeat challenger-too-long',
    bit: 23,
    hint: `GET /heartbeat\nX-CHALLENGER: ${ID}<then 65 or more characters, such as xxxxx…>`,
    nearMisses: [headInstead(47, r => r.status === 431)]
  }
] as const satisfies readonly Row[]

/** What a route names to pass a challenge (`fastify.bitFor(trigger)`): `<METHOD> <resource> <outcome>`.
 * HEAD is in none: a HEAD request passes nothing, as in the reference. */
export type Trigger = typeof rows[number]['trigger']

export interface Challenge extends Row {
  readonly trigger: Trigger
}

/** Every challenge, sorted by id. A session's progress is a bitmask of their `bit`s. */
export const challenges: readonly Challenge[] = Object.freeze(rows.map(c => Object.freeze(c)))
