// The body family: a JSON answer's body changed in one way (HTTPMutator's JSON operators: a property
// removed or added, a type changed, a boolean reversed, a null, a string replaced; an array's
// element removed, exchanged or added, or the array emptied).
import { NOTE, rewriteJson, type Defect } from '../defect.js'

interface Listed { challenges: Array<Record<string, unknown> & { status: boolean }> }
const listed = (change: (challenges: Listed['challenges']) => Listed['challenges'] | undefined) => (body: unknown) => {
  const challenges = change((body as Listed).challenges)
  return challenges === undefined ? undefined : { challenges }
}
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
  },
  {
    id: 'last-challenge-missing',
    family: 'body',
    severity: 'medium',
    source: 'HTTPMutator: array element removed (AER)',
    endpoint: 'GET /challenges',
    untried: 'a GET /challenges answered in JSON',
    name: 'The last challenge is left out of the list',
    breaks: 'GET /challenges lists every challenge but the last one (the highest id): the list is one item short.',
    check: 'Assert the list is whole: as many challenges as the session\'s challengeStatus has ids, the last one included.',
    why: 'An off-by-one at the end of a list is the commonest slice bug there is; the item lost is the newest one, the one a user is looking for.',
    hunt: true,
    answer: rewriteJson('GET', '/challenges', 200, listed(challenges => challenges.slice(0, -1)))
  },
  {
    id: 'challenges-out-of-order',
    family: 'body',
    severity: 'low',
    source: 'HTTPMutator: array elements exchanged (AEE)',
    endpoint: 'GET /challenges',
    untried: 'a GET /challenges answered in JSON',
    name: 'Two challenges listed out of id order',
    breaks: 'GET /challenges lists the first two challenges the wrong way round: the list is no longer sorted by id.',
    check: 'Assert the order the docs promise: each id is greater than the one before it.',
    why: 'A documented order is part of the contract: a client that shows the list as it comes, or takes the first item as challenge 01, shows it wrong.',
    hunt: true,
    answer: rewriteJson('GET', '/challenges', 200, listed(challenges => [challenges[1], challenges[0], ...challenges.slice(2)] as Listed['challenges']))
  },
  {
    id: 'challenges-empty-anonymous',
    family: 'body',
    severity: 'medium',
    source: 'HTTPMutator: array emptied (EAS)',
    endpoint: 'GET /challenges',
    untried: 'a GET /challenges without a session',
    name: 'The list is empty without a session',
    breaks: 'GET /challenges without a live session answers {"challenges":[]} instead of every challenge, each with status false.',
    check: 'Read the list without X-CHALLENGER too, and assert it is full: every challenge, none passed.',
    why: 'The view without a session is the first one a newcomer gets, and an empty list says there is nothing to do; a test that only loops over the items passes on it, checking nothing.',
    hunt: false,
    answer: rewriteJson('GET', '/challenges', 200, (_, asked) => asked.session === null ? { challenges: [] } : undefined)
  },
  {
    id: 'passed-listed-twice',
    family: 'body',
    severity: 'medium',
    source: 'HTTPMutator: array element added (AEA)',
    endpoint: 'GET /challenges',
    untried: 'a GET /challenges with a session (whose list then shows challenges passed)',
    name: 'Passed challenges listed twice',
    breaks: 'GET /challenges lists each challenge the session has passed twice, the copy right after it.',
    check: 'With a session that has passed some challenges, assert each id is listed once and the list is as long as it should be.',
    why: 'Duplicates are what a join gives when one side has more rows than planned (here, the passes): counts, totals and progress bars then go past 100%.',
    hunt: true,
    answer: rewriteJson('GET', '/challenges', 200, listed(challenges => challenges.some(item => item.status) ? challenges.flatMap(item => item.status ? [item, item] : [item]) : undefined))
  }
]
