// The body family: a JSON answer's body changed in one way (HTTPMutator's JSON operators: a property
// removed or added, a type changed, a boolean reversed, a null, a string replaced).
import { NOTE, rewriteJson, type Defect } from '../defect.js'

interface Listed { challenges: Array<Record<string, unknown> & { status: boolean }> }
const OUTSIDE_ASCII = /\P{ASCII}/gu
const HAS_OUTSIDE_ASCII = /\P{ASCII}/u

export const bodyDefects: Defect[] = [
  {
    id: 'empty-note-dropped',
    family: 'body',
    severity: 'medium',
    source: 'HTTPMutator: object property removed (OPR)',
    endpoint: 'GET and POST /secret/note',
    untried: 'a note read (or written) while the note is empty',
    name: 'An empty note is answered as {}',
    breaks: 'While the note is empty it is answered {} instead of {"note":""}: the property is left out.',
    check: 'Read the note before writing one, and assert the whole body, not just the status.',
    why: 'An empty value and a missing one are not the same: a client that reads body.note gets undefined, and shows it or crashes.',
    hunt: true,
    answer: rewriteJson('*', NOTE, 200, body => (body as { note: string }).note === '' ? {} : undefined)
  },
  {
    id: 'challenges-extra-property',
    family: 'body',
    severity: 'low',
    source: 'HTTPMutator: object property added (OPA)',
    endpoint: 'GET /challenges',
    untried: 'a GET /challenges answered in JSON',
    name: 'Each challenge has an extra property',
    breaks: 'Each challenge of GET /challenges carries a "done" property beside the documented id, name, description and status.',
    check: 'Assert the exact keys of a listed item, not only the ones you use.',
    why: 'A contract says what is not there too: strict clients and schemas (additionalProperties: false) refuse the answer, and unplanned fields are how data leaks start.',
    hunt: true,
    answer: rewriteJson('GET', '/challenges', 200, body => ({ challenges: (body as Listed).challenges.map(item => ({ ...item, done: item.status })) }))
  },
  {
    id: 'challenge-id-string',
    family: 'body',
    severity: 'low',
    source: 'HTTPMutator: property type changed (PTC)',
    endpoint: 'GET /challenges',
    untried: 'a GET /challenges answered in JSON',
    name: 'Challenge ids answered as strings',
    breaks: 'Each challenge\'s id in GET /challenges is a string ("28") instead of a number (28).',
    check: 'Assert the type of each value you read (a number is not a string that looks like one), or compare whole items.',
    why: 'Types are part of the contract: "28" === 28 is false, so a client that looks a challenge up by its number finds nothing.',
    hunt: true,
    answer: rewriteJson('GET', '/challenges', 200, body => ({ challenges: (body as Listed).challenges.map(item => ({ ...item, id: String(item.id) })) }))
  },
  {
    id: 'passed-listed-false',
    family: 'body',
    severity: 'medium',
    source: 'HTTPMutator: boolean property reversed (BPR)',
    endpoint: 'GET /challenges',
    untried: 'a GET /challenges with a session (whose list then shows challenges passed)',
    name: 'Passed challenges listed as not passed',
    breaks: 'GET /challenges lists the challenges the session has passed with status false.',
    check: 'Pass a challenge, then assert the list says so: its status for that challenge is true.',
    why: 'A flag that reads the wrong way round is the oldest bug there is: here a learner\'s progress is lost from view.',
    hunt: true,
    answer: rewriteJson('GET', '/challenges', 200, body => {
      const { challenges } = body as Listed
      return challenges.some(item => item.status) ? { challenges: challenges.map(item => ({ ...item, status: false })) } : undefined
    })
  },
  {
    id: 'error-messages-null',
    family: 'body',
    severity: 'medium',
    source: 'HTTPMutator: null property setting (NPS)',
    endpoint: 'every error answer with a JSON body',
    untried: 'a request refused with an error body (4xx)',
    name: 'Error messages answered as null',
    breaks: 'Error bodies say {"errorMessages":null}: the list of what went wrong is gone.',
    check: 'On a refusal, assert the error body\'s shape: errorMessages is a list of strings that says why.',
    why: 'The message is how a person learns what to fix; and a null where a list was promised crashes a client that loops over it.',
    hunt: true,
    answer: rewriteJson('*', '*', 'error', () => ({ errorMessages: null }))
  },
  {
    id: 'note-outside-ascii',
    family: 'body',
    severity: 'medium',
    source: 'HTTPMutator: string property replaced (SPR)',
    endpoint: 'GET and POST /secret/note',
    untried: 'a note with characters outside ASCII (é, ☕), written and read in JSON',
    name: 'Characters outside ASCII come back as "?"',
    breaks: 'The note is answered in JSON with each character outside ASCII replaced by "?", though it is kept as written.',
    check: 'Write a note with accents and emoji, and assert it comes back exactly as written.',
    why: 'Encodings break at the edges: a suite that only writes "hello" never meets the bug that turns every user\'s name into "Ren?e".',
    hunt: true,
    answer: rewriteJson('*', NOTE, 200, body => {
      const { note } = body as { note: string }
      return HAS_OUTSIDE_ASCII.test(note) ? { note: note.replace(OUTSIDE_ASCII, '?') } : undefined
    })
  }
]
