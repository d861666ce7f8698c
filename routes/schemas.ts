// TypeBox schemas shared by the route plugins; the type provider derives the handlers' types from them.
import { Type } from '@sinclair/typebox'

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
