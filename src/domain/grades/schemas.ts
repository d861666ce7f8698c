// The shapes of /grades (routes/grades.ts) for its validation and the OpenAPI document.
import { Type } from '@sinclair/typebox'

export const GradeParams = Type.Object({ grade: Type.String({ description: 'The run\'s id, from POST /grades' }) })

export const GradeResultBody = Type.Object({
  base: Type.String({ minLength: 1, maxLength: 2000, description: 'The base\'s URL as POST /grades listed it, or its last segment (its id)' }),
  exitCode: Type.Integer({ minimum: 0, maximum: 255, description: 'Your suite\'s exit code against that base: 0 passed (the defect survived), anything else failed (caught)' })
}, { additionalProperties: false, examples: [{ base: 'http://127.0.0.1:3000/grades/0123456789abcdef/a1b2c3d4e5f6', exitCode: 1 }] })

const Base = Type.Object({
  url: Type.String({ description: 'Run your suite with API_BASE_URL set to it: every session made there (POST <url>/challenger) carries the base\'s defect' }),
  correct: Type.Boolean({ description: 'The correct service: your suite must pass here' }),
  exitCode: Type.Union([Type.Integer(), Type.Null()], { description: 'The exit code reported for it, or null' })
})

const Survivor = Type.Object({
  family: Type.String({ description: 'The part of the contract the defect breaks: status, headers, body, auth, sessions, state or negotiation' }),
  endpoint: Type.String({ description: 'Where it lives' })
})

export const GradeRunJson = Type.Object({
  id: Type.String(),
  results: Type.String({ description: 'Where to POST each base\'s exit code' }),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time', description: 'The run, its bases and its results are gone after it' }),
  bases: Type.Array(Base, { description: 'The correct base first, then one per defect of the catalogue, in a random order' }),
  caught: Type.Integer({ description: 'Defect bases where the suite failed (exit code not 0)' }),
  survived: Type.Integer({ description: 'Defect bases where the suite passed' }),
  pending: Type.Integer({ description: 'Defect bases not reported yet' }),
  total: Type.Integer({ description: 'Defect bases' }),
  correctExitCode: Type.Union([Type.Integer(), Type.Null()], { description: 'The correct base\'s exit code: the score counts only when it is 0' }),
  score: Type.Union([Type.Number(), Type.Null()], { description: 'Caught / (caught + survived), in percent (Stryker\'s mutation score); null until the correct base passed and a defect base is reported' }),
  complete: Type.Boolean({ description: 'Every base reported, and the suite passed on the correct one' }),
  survivors: Type.Array(Survivor, { description: 'Each surviving defect\'s family and endpoint: never the check that would catch it' })
})
