// TypeBox schemas shared by the route plugins; the type provider derives the handlers' types from them.
import { Type } from '@sinclair/typebox'
import { challenges, paddedId } from '../src/catalogue.js'
import { TOKEN_PATTERN } from '../src/store.js'

export const ErrorBody = Type.Object({
  errorMessages: Type.Array(Type.String())
}, { description: 'The body of every error answer but the heartbeat\'s' })

export const NoteBody = Type.Object({
  note: Type.String({ description: 'The new note; longer text is truncated when stored' })
})

export const Note = Type.Object({
  note: Type.String({ description: 'The stored note, "" when none was written' })
})

export const ChallengeList = Type.Object({
  challenges: Type.Array(Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    description: Type.String(),
    status: Type.Boolean()
  }))
})

// `type: 'null'` is how OpenAPI tools read "no body"; the static type lets `reply.send()` go without one.
export const Empty = Type.Unsafe<undefined>({ type: 'null', description: 'No body' })

/** The catalogue ids as the reference writes them in a status map: `01`, `02`, `25`, … */
const statusIds = challenges.map(c => paddedId(c.id))

/** What GET /challenger/{guid} answers and PUT takes back: everything needed to restore a session. */
export const SessionJson = Type.Object({
  xChallenger: Type.String({ description: 'The session id, as in X-CHALLENGER' }),
  xAuthToken: Type.String({ pattern: TOKEN_PATTERN.source, description: 'The session\'s X-AUTH-TOKEN' }),
  secretNote: Type.String({ description: 'The secret note; truncated when restored, like any note' }),
  challengeStatus: Type.Object(
    Object.fromEntries(statusIds.map(id => [id, Type.Optional(Type.Boolean())])),
    { additionalProperties: false, description: 'Passed or not, by challenge id; an id left out is not passed' }
  )
}, { additionalProperties: false })

export const GuidParams = Type.Object({
  guid: Type.String({ description: 'A session id' })
})
