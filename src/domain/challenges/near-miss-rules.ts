// Near misses: what one sees of a request, and the rules several challenges of challenge-list.ts share.

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
  authorization: 'none' | 'basic' | 'other'
  /** Whether X-CHALLENGER was sent (a session can also be named in the URL). */
  namedSession: boolean
}

/** What the journal shows of a request, from which a near miss's sentence is made. */
export interface SeenRequest {
  method: string
  contentType: string | null
  tokenSource?: 'x-auth-token' | 'bearer'
}

/** A request that missed a challenge by one condition: `when` recognises it (asked only on the challenge's
 * resource, while it is not passed), `says` is the sentence the learner reads. */
export interface NearMiss {
  readonly when: (request: RequestFacts) => boolean
  readonly says: (request: SeenRequest) => string
}

/** Challenge `id` is one of GET's: the same request as HEAD passes nothing. */
export const headInstead = (id: number, when: (r: RequestFacts) => boolean = () => true): NearMiss => ({
  when: r => r.method === 'HEAD' && when(r),
  says: () => `HEAD passes nothing: challenge ${id} needs GET`
})

export const notAllowed = (id: number, method: string, resource: string): NearMiss => ({
  when: r => r.status === 405 && r.method !== method && r.override === null,
  says: r => `Challenge ${id} needs ${method} ${resource}; ${r.method} is not allowed there`
})

export const otherMethod = (id: number, method: 'GET' | 'POST', when: (r: RequestFacts) => boolean): NearMiss => ({
  when: r => r.method === (method === 'GET' ? 'POST' : 'GET') && when(r),
  says: r => `Challenge ${id} needs ${method} /secret/note; this was ${r.method}`
})

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
  says: r => `Challenge ${id} needs a JSON body such as {"note": "hi"}; this one ` +
    (r.contentType === null ? 'had no Content-Type' : r.contentType === 'application/json' ? 'was not a JSON object with a string note' : `had Content-Type ${r.contentType}`)
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
