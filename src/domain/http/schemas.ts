// TypeBox schemas shared by the route plugins; the type provider derives the handlers' types from
// them, and @fastify/swagger turns them, with their descriptions, headers and examples, into the
// OpenAPI document.
import { Type, type TSchema } from '@sinclair/typebox'
import { challenges, OTHER_REFERENCE_NAMES, paddedId } from '../challenges/catalogue.js'
import { MAX_NAME } from '../sessions/names.js'
import { TOKEN_PATTERN } from '../sessions/ids.js'

export interface HeaderDoc {
  type: 'string'
  description: string
}

/** A response header, for the document. */
export function header (description: string): HeaderDoc {
  return { type: 'string', description }
}

/** Every answer echoes X-CHALLENGER. */
const echo = { 'X-CHALLENGER': header('The request\'s X-CHALLENGER, echoed when it was sent') }

/** An XML body, documented as text with an example: its shapes are in xml.ts. */
function xmlText (example: string) {
  return { type: 'string', description: 'XML; see the example', example }
}

/** Where `answer` keeps an answer's XML example, for the document (see `documented`). */
const XML_EXAMPLE = 'x-xml-example'

/**
 * `schema` as the answer for one status: a description, and the headers that come with it. With
 * `xmlExample`, the answer is negotiated (JSON, or XML shaped like the example), which the document
 * shows (`documented`); the route keeps one schema, for JSON: the XML is text that plugins/formats.ts
 * makes, and Fastify then picks the serializer by status alone, not by status and media type.
 * (Typed as `schema` either way, so handlers keep their types.)
 */
export function answer<T extends TSchema> (schema: T, description: string, headers: Record<string, HeaderDoc> = {}, xmlExample?: string): T {
  const answered = { ...schema, description, headers: { ...echo, ...headers } }
  return xmlExample === undefined ? answered : { ...answered, [XML_EXAMPLE]: xmlExample }
}

/**
 * A route's responses as the OpenAPI document shows them: each negotiated answer as application/json
 * with its schema, or application/xml and text/xml shaped like its example. @fastify/swagger's
 * `transform` (plugins/docs.ts) gives it each route's responses.
 */
export function documented (responses: Record<string, Record<string, unknown>>): Record<string, Record<string, unknown>> {
  return Object.fromEntries(Object.entries(responses).map(([status, response]) => {
    const { [XML_EXAMPLE]: xmlExample, description, headers, examples, ...json } = response
    if (typeof xmlExample !== 'string') return [status, response]
    const xml = { schema: xmlText(xmlExample) }
    // In a media type, OpenAPI 3.0 takes one `example` beside the schema, not JSON Schema's `examples`.
    const content = { 'application/json': { schema: json, example: [examples].flat()[0] }, 'application/xml': xml, 'text/xml': xml }
    return [status, { description, headers, content }]
  }))
}

export const XML = {
  note: '<?xml version="1.0" encoding="UTF-8"?><secretnote><note>my secret</note></secretnote>',
  errors: '<?xml version="1.0" encoding="UTF-8"?><errorMessages><errorMessage>what was wrong</errorMessage></errorMessages>',
  challenges: '<?xml version="1.0" encoding="UTF-8"?><challenges><challenge><id>28</id><name>GET /heartbeat (204)</name>' +
    '<description>Send GET to /heartbeat: the server is running and answers with no content.</description>' +
    '<status>true</status></challenge></challenges>',
  requests: '<?xml version="1.0" encoding="UTF-8"?><requests><request><id>1763806530123-3f2a9c1b</id><at>2026-11-22T10:15:30.123Z</at><method>POST</method>' +
    '<path>/secret/note</path><status>415</status><token>valid</token><tokenSource>x-auth-token</tokenSource>' +
    '<contentType>application/x-www-form-urlencoded</contentType><passed/>' +
    '<hint>Challenge 34 needs a JSON body such as {"note": "hi"}; this one had Content-Type application/x-www-form-urlencoded</hint></request></requests>',
  finding: '<?xml version="1.0" encoding="UTF-8"?><finding><verdict>correct</verdict><explanation>Nothing hidden changed this answer: …</explanation>' +
    '<found>0</found><hidden>3</hidden><complete>false</complete></finding>',
  session: '<?xml version="1.0" encoding="UTF-8"?><challenger><xChallenger>6a1f8e2c-4b3d-4e5f-9a7b-0c1d2e3f4a5b</xChallenger>' +
    '<xAuthToken>0123456789abcdef0123456789abcdef</xAuthToken><secretNote>my secret</secretNote>' +
    '<challengeStatus><challenge id="01">true</challenge><challenge id="02">false</challenge></challengeStatus></challenger>'
}

export const ErrorBody = Type.Object({
  errorMessages: Type.Array(Type.String())
}, { examples: [{ errorMessages: ['The token is not the one issued to this session'] }] })

/** An error answer: `{"errorMessages": ["..."]}`, its example saying what went wrong. */
export function failure (description: string, headers: Record<string, HeaderDoc> = {}): typeof ErrorBody {
  return answer({ ...ErrorBody, examples: [{ errorMessages: [description] }] }, description, headers, XML.errors)
}

/** An answer without a body (`type: 'null'` is how OpenAPI tools read "no body"). */
export function noBody (description: string, headers: Record<string, HeaderDoc> = {}) {
  return answer(Type.Unsafe<undefined>({ type: 'null' }), description, headers)
}

/** The heartbeat's error answers: an empty text/html body. */
export function html (description: string, headers: Record<string, HeaderDoc> = {}) {
  return {
    description,
    headers: { ...echo, ...headers },
    content: { 'text/html;charset=utf-8': { schema: { type: 'string', maxLength: 0 } } }
  }
}

export const Allow = header('The methods this path answers')

export const NoteBody = Type.Object({
  note: Type.String({ description: 'The new note; longer text is truncated when stored' })
}, { examples: [{ note: 'my secret' }] })

export const Note = Type.Object({
  note: Type.String({ description: 'The stored note, "" when none was written' })
}, { examples: [{ note: 'my secret' }] })

/**
 * GET /challenges: the reference's keys, in its order (the serializer writes them in this order),
 * and `hint` only when asked for with ?hints=true.
 */
export const ChallengeList = Type.Object({
  challenges: Type.Array(Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    description: Type.String(),
    status: Type.Boolean({ description: 'Passed by the caller\'s session' }),
    hint: Type.Optional(Type.String({ description: 'Only with ?hints=true: how to pass it, the request line and the headers to send' }))
  }))
}, {
  examples: [{
    challenges: [{
      id: 28,
      name: 'GET /heartbeat (204)',
      description: 'Send GET to /heartbeat: the server is running and answers with no content.',
      status: true
    }]
  }]
})

/** A string, or null (OpenAPI 3.0's nullable, which fast-json-stringify reads too). */
function nullableString (description: string) {
  return Type.Unsafe<string | null>({ type: 'string', nullable: true, description })
}

/** The kinds of Authorization header a journal entry tells apart (RequestView's authorization). */
export const AUTHORIZATIONS = ['basic', 'basic-wrong', 'bearer', 'token', 'other'] as const
/** The kinds of body a journal entry tells apart (RequestView's body). */
export const BODIES = ['note', 'long-note', 'other', 'refused', 'malformed', 'unsupported', 'too-large', 'ignored'] as const

/**
 * One request of a session's journal as GET /challenger/{guid}/requests shows it, its elements in
 * this order in XML too. The journal's entry and view types are derived from it: a field is added here.
 */
export const RequestView = Type.Object({
  id: Type.String({ description: 'Names this entry in a bug hunt\'s finding (POST /challenger/{guid}/findings)' }),
  at: Type.String({ format: 'date-time', description: 'When it was answered' }),
  method: Type.String(),
  path: Type.String({ description: 'Without the query string; cut at 100 characters' }),
  query: Type.Optional(Type.String({ description: 'The query string, without its "?", when there was one; cut at 100 characters' })),
  status: Type.Integer({ description: 'The status it was answered with' }),
  token: Type.Optional(Type.Union([Type.Literal('missing'), Type.Literal('valid'), Type.Literal('wrong')], {
    description: 'On /secret/note only: whether a token came, and whether it was the session\'s (its value is never kept)'
  })),
  tokenSource: Type.Optional(Type.Union([Type.Literal('x-auth-token'), Type.Literal('bearer')], { description: 'How the token came, when one did' })),
  contentType: nullableString('The media type of Content-Type, without parameters; null when there was none'),
  passed: Type.Array(Type.Integer(), { description: 'The ids of the challenges this request passed' }),
  hint: nullableString('For a near miss: which challenge it missed, and what was different'),
  // What a replay needs beyond the above (?format=curl, ?format=http): kinds, never values.
  accept: Type.Optional(Type.Union([Type.Literal('application/xml'), Type.Literal('text/xml'), Type.Literal('other')], {
    description: 'When Accept asked for something other than JSON: the XML type it was answered in, or other (neither JSON nor XML: 406 where an answer has a body)'
  })),
  override: Type.Optional(Type.String({ description: 'X-HTTP-Method-Override, when sent: the method it named (trimmed, in capitals), or other when it named none' })),
  authorization: Type.Optional(Type.Union(AUTHORIZATIONS.map(kind => Type.Literal(kind)), {
    description: 'The kind of Authorization header, when one came (its value is never kept): basic (the credentials this server takes), ' +
      'basic-wrong (any other Basic), bearer, token (one word without a scheme), other'
  })),
  body: Type.Optional(Type.Union(BODIES.map(kind => Type.Literal(kind)), {
    description: 'What the body was, when one came (its text is never kept): note (a note the route could store whole), long-note (one longer than the note length), ' +
      'other (a body the route took: a name, a session, a finding), refused (well-formed, not what the route takes: 400), malformed (not JSON or XML as its type said: 400), ' +
      'unsupported (a type the route does not take: 415), too-large (over the body limit: 413), ignored (a body the route does not read)'
  })),
  challengerHeader: Type.Optional(Type.Literal(false, { description: 'Present, false, when X-CHALLENGER did not name this session: the request named it in its URL only' }))
})

/** GET /challenger/{guid}/requests's query: JSON or XML by Accept, or the requests to send again. */
export const JournalQuery = Type.Object({
  format: Type.Optional(Type.String({
    description: 'curl: a shell script of curl commands; http: a .http file (VS Code\'s REST Client, JetBrains\' HTTP Client). Both text/plain, oldest first. Left out: JSON or XML'
  }))
})

/** GET /challenger/{guid}/requests: the session's journal, newest first. */
export const RequestList = Type.Object({
  requests: Type.Array(RequestView)
}, {
  examples: [{
    requests: [{
      id: '1763806530123-3f2a9c1b',
      at: '2026-11-22T10:15:30.123Z',
      method: 'POST',
      path: '/secret/note',
      status: 415,
      token: 'valid',
      tokenSource: 'x-auth-token',
      contentType: 'application/x-www-form-urlencoded',
      passed: [],
      hint: 'Challenge 34 needs a JSON body such as {"note": "hi"}; this one had Content-Type application/x-www-form-urlencoded'
    }]
  }]
})

/** The catalogue ids as the reference writes them in a status map: `01`, `02`, `25`, … */
const statusIds = challenges.map(c => paddedId(c.id))

/** A bug hunt in a session's JSON (docs/bug-hunt.md): how many defects it hides (never which), the ids of those found, and whether that is all. */
export const HuntJson = Type.Object({
  hidden: Type.Integer({ description: 'How many defects the hunt hides (which ones never leaves the server)' }),
  found: Type.Array(Type.String(), { description: 'The ids of the defects found so far, in the order found' }),
  complete: Type.Boolean({ description: 'true once every hidden defect is found: the hunt is over' })
}, { additionalProperties: false })

/** What GET /challenger/{guid} answers and PUT takes back: everything needed to restore a session. */
export const SessionJson = Type.Object({
  xChallenger: Type.String({ description: 'The session id, as in X-CHALLENGER' }),
  xAuthToken: Type.String({ pattern: TOKEN_PATTERN.source, description: 'The session\'s X-AUTH-TOKEN' }),
  secretNote: Type.String({ description: 'The secret note; truncated when restored, like any note' }),
  challengeStatus: Type.Object(
    Object.fromEntries(statusIds.map(id => [id, Type.Optional(Type.Boolean())])),
    { additionalProperties: false, description: 'Passed or not, by challenge id; an id left out is not passed' }
  ),
  name: Type.Optional(Type.String({ description: `The learner's display name (1 to ${MAX_NAME} characters), when they gave one` })),
  hunt: Type.Optional(HuntJson)
}, {
  additionalProperties: false,
  examples: [{
    xChallenger: '6a1f8e2c-4b3d-4e5f-9a7b-0c1d2e3f4a5b',
    xAuthToken: '0123456789abcdef0123456789abcdef',
    secretNote: 'my secret',
    challengeStatus: Object.fromEntries(statusIds.map(id => [id, id === '01']))
  }]
})

/** The token forms a restore takes: this service's, or the reference's (a lowercase UUID). */
export const RESTORABLE_TOKEN = /^(?:[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/

/**
 * What PUT /challenger/{guid} takes: the JSON of GET /challenger/{guid}, or a part of it, or a
 * session saved from the reference app. A missing token is made anew, a missing note is empty, and
 * a missing status map means nothing passed. Status keys are ids (`01`) or the reference's enum
 * names (`CREATE_NEW_CHALLENGER`); the reference's other challenges are accepted and ignored.
 */
export const SessionRestore = Type.Object({
  xChallenger: Type.Optional(Type.String({ description: 'The session id; when present, the URL\'s' })),
  xAuthToken: Type.Optional(Type.String({ pattern: RESTORABLE_TOKEN.source, description: 'The token: 32 hex digits, or a UUID as the reference issues; a new one when left out' })),
  secretNote: Type.Optional(Type.String({ description: 'The secret note; truncated like any note; empty when left out' })),
  challengeStatus: Type.Optional(Type.Object(
    Object.fromEntries([
      ...statusIds,
      ...challenges.map(c => c.referenceName),
      ...OTHER_REFERENCE_NAMES
    ].map(key => [key, Type.Optional(Type.Boolean())])),
    { additionalProperties: false, description: 'Passed or not, by id or by the reference\'s challenge name; one left out is not passed' }
  )),
  name: Type.Optional(Type.String({ description: `The learner's display name: 1 to ${MAX_NAME} characters once trimmed, no control or bidirectional-control characters; none when left out` })),
  // Taken, so that GET's JSON goes back whole, and never read: a restore does not set a hunt (docs/api.md).
  hunt: Type.Optional(Type.Unknown({ description: 'Ignored: a restore keeps a live session\'s hunt as it is, and a session made again is no hunt' }))
}, {
  additionalProperties: false,
  examples: [{
    xChallenger: '6a1f8e2c-4b3d-4e5f-9a7b-0c1d2e3f4a5b',
    xAuthToken: '0123456789abcdef0123456789abcdef',
    secretNote: 'my secret',
    challengeStatus: { '01': true, GET_HEARTBEAT_204: true }
  }]
})

/** What PATCH /challenger/{guid} takes: the name to set, or null to clear it. */
export const NameChange = Type.Object({
  name: Type.Union([Type.String(), Type.Null()], { description: `1 to ${MAX_NAME} characters once trimmed, no control or bidirectional-control characters; null clears it` })
}, { additionalProperties: false, examples: [{ name: 'Ada' }] })

/**
 * What POST /challenger may carry (any other body is ignored, as the reference does). Its examples,
 * the unnamed one first: Swagger UI's "Try it out" sends the first one untouched, and a session is
 * named only when the learner asks for it.
 */
export const NewSession = Type.Object({
  name: Type.Optional(Type.String({ description: `1 to ${MAX_NAME} characters once trimmed, no control or bidirectional-control characters` })),
  hunt: Type.Optional(Type.Boolean({ description: 'true: a bug hunt, with three deliberate defects hidden in this session\'s answers (docs/bug-hunt.md)' }))
}, {
  // @fastify/swagger writes x-examples as the request body's OpenAPI `examples`.
  'x-examples': {
    unnamed: { summary: 'An unnamed session', value: {} },
    named: { summary: 'A session named for the class board', value: { name: 'Ada' } },
    hunt: { summary: 'A bug hunt: three hidden defects to find', value: { hunt: true } }
  }
})

/** POST /challenger/{guid}/findings: the journal entry whose answer looks wrong. */
export const FindingBody = Type.Object({
  entry: Type.String({ maxLength: 100, description: 'The entry\'s id, from GET /challenger/{guid}/requests' })
}, { additionalProperties: false, examples: [{ entry: '1763806530123-3f2a9c1b' }] })

/** What a finding is told. */
export const FindingAnswer = Type.Object({
  verdict: Type.Union([Type.Literal('found'), Type.Literal('correct')], { description: 'found: a hidden defect changed that answer; correct: the service answered as it should' }),
  defect: Type.Optional(Type.Object({
    id: Type.String(),
    name: Type.String(),
    breaks: Type.String({ description: 'What was wrong' }),
    why: Type.String({ description: 'Why a bug like it matters' })
  })),
  explanation: Type.Optional(Type.String({ description: 'For a correct answer: why it was correct' })),
  found: Type.Integer({ description: 'Defects found so far' }),
  hidden: Type.Integer({ description: 'Defects the hunt hides' }),
  complete: Type.Boolean({ description: 'true once every hidden defect is found: the hunt is over' })
}, {
  examples: [{ verdict: 'correct', explanation: 'Nothing hidden changed this answer: GET /heartbeat answered 204, as the service\'s rules say. GET /heartbeat answers 204 No Content: the server is running, and has nothing to say.', found: 0, hidden: 3, complete: false }]
})

/** GET /admin/sessions's query: the page size is checked by its route, to say what it wants. */
export const AdminPageQuery = Type.Object({
  limit: Type.Optional(Type.String({ description: 'Sessions per page' })),
  cursor: Type.Optional(Type.String({ description: 'Where the page before ended: its Link header\'s cursor' }))
})

/** A page of the class, most recently active first. */
export const AdminSessionPage = Type.Object({
  total: Type.Integer({ description: 'Live sessions in all' }),
  sessions: Type.Array(Type.Object({
    guid: Type.String(),
    name: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.String({ format: 'date-time' }),
    lastSeen: Type.String({ format: 'date-time' }),
    passed: Type.Array(Type.Integer(), { description: 'The ids of the challenges passed' }),
    hunt: Type.Union([
      Type.Object({ found: Type.Integer({ description: 'Defects found so far' }), hidden: Type.Integer({ description: 'Defects the hunt hides' }) }),
      Type.Null()
    ], { description: 'A bug hunt: how many of its hidden defects are found (never which); null for a session that is no hunt' }),
    medals: Type.Array(Type.Object({ id: Type.String(), name: Type.String() }), { description: 'The medals earned, in the rail\'s order (src/domain/challenges/medals.ts)' }),
    grade: Type.Union([
      Type.Object({
        caught: Type.Integer(),
        total: Type.Integer(),
        score: Type.Union([Type.Number(), Type.Null()], { description: 'Caught / (caught + survived), in percent; null until the correct base passed' }),
        complete: Type.Boolean(),
        survivors: Type.Array(Type.String(), { description: 'The family of each surviving defect, in the run\'s order' })
      }),
      Type.Null()
    ], { description: 'The session\'s latest grading run (POST /grades); null for none' })
  })),
  next: Type.Union([Type.String(), Type.Null()], { description: 'The cursor of the next page; null on the last' })
})

/** The class at a glance. */
export const AdminSummary = Type.Object({
  live: Type.Integer(),
  activeLast10Minutes: Type.Integer(),
  challenges: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), passedBy: Type.Integer() }))
})

export const GuidParams = Type.Object({
  guid: Type.String({ description: 'A session id' })
})

export type Requirement = Record<string, string[]>

/**
 * Security requirements, by the names of the document's security schemes. `optional`: the
 * operation works without X-CHALLENGER, but Swagger UI sends it once it is authorized, so that
 * "Try it out" passes challenges (the heartbeat's among them).
 */
export const security: Record<'optional' | 'token' | 'note', Requirement[]> = {
  optional: [{ challenger: [] }, {}],
  token: [{ challenger: [], basic: [] }],
  note: [{ challenger: [], authToken: [] }, { challenger: [], bearer: [] }]
}

/** The document's groups of operations, one per route plugin. */
export type Tag = 'heartbeat' | 'sessions' | 'challenges' | 'secret' | 'grades'
