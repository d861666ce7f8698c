// Near misses: what one sees of a request, and the rules several challenges of challenge-list.ts share.
import { isXml, NOTE_JSON, NOTE_XML } from './messages.js'

/** How a request came with its token, on the routes that take one (/secret/note). */
export type TokenVerdict = 'missing' | 'valid' | 'wrong'

/** What a near miss judges of a request: what the journal keeps and a few headers (never their secrets). */
export interface RequestFacts {
  method: string
  status: number
  token?: TokenVerdict
  tokenSource?: 'x-auth-token' | 'bearer'
  /** The media type, lowercase, without parameters. */
  contentType: string | null
  /** X-HTTP-Method-Override, trimmed and in capitals. */
  override: string | null
  authorization: Authorization
  /** Whether X-CHALLENGER was sent (a session can also be named in the URL). */
  namedSession: boolean
  /** The API base the request came under: '' (the root, the default) or '/api'. Its hint names paths under it. */
  base?: string
}

/** What an Authorization header holds: nothing, Basic credentials, a value without a scheme
 * (`Authorization: <token>`: one word, not a scheme's name), or anything else (Bearer included). */
export type Authorization = 'none' | 'basic' | 'bare' | 'other'

export function authorizationOf (header: string | undefined): Authorization {
  if (header === undefined) return 'none'
  if (/^basic /i.test(header)) return 'basic'
  return /^\S+$/.test(header) && !/^(basic|bearer)$/i.test(header) ? 'bare' : 'other'
}

/** What the journal shows of a request, from which a near miss's sentence is made. */
export interface SeenRequest {
  method: string
  contentType: string | null
  tokenSource?: 'x-auth-token' | 'bearer'
}

/** A request as a sentence sees it: what the journal shows, and the base ('' or '/api') of the paths it names. */
export interface SeenAt extends SeenRequest {
  base: string
}

/** A request that missed a challenge by one condition: `when` recognises it (asked only on the challenge's
 * resource, while it is not passed), `says` is the sentence the learner reads. */
export interface NearMiss {
  readonly when: (request: RequestFacts) => boolean
  readonly says: (request: SeenAt) => string
}

/** Challenge `id` is one of GET's: the same request as HEAD passes nothing. */
export const headInstead = (id: number, when: (r: RequestFacts) => boolean = () => true): NearMiss => ({
  when: r => r.method === 'HEAD' && when(r),
  says: () => `HEAD passes nothing: challenge ${id} needs GET`
})

export const notAllowed = (id: number, method: string, resource: string): NearMiss => ({
  when: r => r.status === 405 && r.method !== method && r.override === null,
  says: r => `Challenge ${id} needs ${method} ${r.base}${resource}; ${r.method} is not allowed there`
})

export const otherMethod = (id: number, method: 'GET' | 'POST', when: (r: RequestFacts) => boolean): NearMiss => ({
  when: r => r.method === (method === 'GET' ? 'POST' : 'GET') && when(r),
  says: r => `Challenge ${id} needs ${method} ${r.base}/secret/note; this was ${r.method}`
})

/** No token, but a value without a scheme in Authorization: the token meant as a Bearer one (37, 38). */
export const bareToken = (id: number, method: string): NearMiss => ({
  when: r => r.method === method && r.token === 'missing' && r.authorization === 'bare',
  says: () => `Challenge ${id} needs Authorization: Bearer <token>; this request's Authorization had no scheme (no "Bearer " before the token)`
})

/** No token, and nothing in Authorization that looks meant as one. */
export const noToken = (r: RequestFacts): boolean => r.token === 'missing' && r.authorization !== 'bare'

export const wrongBearer = (id: number, method: string): NearMiss => ({
  when: r => r.method === method && r.token === 'wrong' && r.tokenSource === 'bearer',
  says: () => `Challenge ${id} needs a wrong X-AUTH-TOKEN; a wrong Bearer token does not count`
})

export const tokenCameAs = (id: number, method: string, wanted: 'x-auth-token' | 'bearer'): NearMiss => ({
  when: r => r.method === method && r.token === 'valid' && r.tokenSource !== wanted && r.status < 400,
  says: () => wanted === 'bearer'
    ? `Challenge ${id} needs your token as Authorization: Bearer <token>; this one came in X-AUTH-TOKEN`
    : `Challenge ${id} needs your token in X-AUTH-TOKEN; this one came as a Bearer token`
})

/** The right token for a note write, but a body the service does not take as a note. */
export const jsonNote = (id: number, source: 'x-auth-token' | 'bearer'): NearMiss => ({
  when: r => r.method === 'POST' && r.token === 'valid' && r.tokenSource === source && (r.status === 415 || r.status === 400),
  says: r => r.contentType !== null && isXml(r.contentType)
    ? `Challenge ${id} needs a note such as {"note": "hi"}; this XML body was not ${NOTE_XML}`
    : `Challenge ${id} needs a JSON body such as {"note": "hi"}; this one ` +
      (r.contentType === null ? 'had no Content-Type' : r.contentType === 'application/json' ? `was not ${NOTE_JSON}` : `had Content-Type ${r.contentType}`)
})

/** POST with X-HTTP-Method-Override passes 40-42; challenges 25-27 want the method itself. */
export const overrideInstead = (id: number, method: string, overrideId: number): NearMiss => ({
  when: r => r.method === 'POST' && r.override === method,
  says: () => `Challenge ${id} needs the ${method} method itself; POST with X-HTTP-Method-Override: ${method} is challenge ${overrideId}`
})

/** Challenges 40-42: POST /heartbeat standing for `method`. */
export const overrideMisses = (id: number, method: string): NearMiss[] => [
  {
    when: r => r.method === 'POST' && r.override === null,
    says: () => `Challenge ${id} needs X-HTTP-Method-Override: ${method} on the POST; this request had none`
  },
  {
    when: r => r.method === 'POST' && r.override !== null && !['DELETE', 'PATCH', 'TRACE'].includes(r.override),
    says: () => `Challenge ${id} needs X-HTTP-Method-Override: ${method}; this one asked for a method the heartbeat does not stand in for`
  },
  {
    when: r => r.method === method,
    says: () => `Challenge ${id} needs POST with X-HTTP-Method-Override: ${method}; this request was ${method} itself`
  }
]

/** Challenge 43: GET /challenger/{guid} answered, but X-CHALLENGER named another session, or none. */
export const sameSessionMisses = (id: number): NearMiss[] => [
  {
    when: r => r.method === 'GET' && r.status === 200 && r.namedSession,
    says: r => `Challenge ${id} needs GET ${r.base}/challenger/<your session id> with the same id in X-CHALLENGER; this URL named another session`
  },
  {
    when: r => r.method === 'GET' && r.status === 200,
    says: () => `Challenge ${id} needs your session id in X-CHALLENGER too, the same as in the URL; this request had none`
  }
]

/** Challenge 44: a restore whose body was refused. */
export const restoreRefused = (id: number): NearMiss => ({
  when: r => r.method === 'PUT' && r.status === 400,
  says: r => `Challenge ${id} needs PUT ${r.base}/challenger/<your session id> with the JSON of GET ${r.base}/challenger/<your session id>; this body was refused (400)`
})

/** Challenges 45 and 46: a PUT that replaced a live session (200), where the challenge wants a 409 or a 201. */
export const restoredInstead = (id: number, wanted: 'mismatch' | 'create'): NearMiss => ({
  when: r => r.method === 'PUT' && r.status === 200,
  says: r => wanted === 'mismatch'
    ? `Challenge ${id} needs PUT ${r.base}/challenger/<another UUID> with your session's JSON, whose xChallenger is then not the URL's; here they were the same`
    : `Challenge ${id} needs PUT ${r.base}/challenger/<a UUID no live session has>; this one named a live session, which was replaced (200), not created`
})
