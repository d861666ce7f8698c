// A journal entry for a store across the network (Redis): a JSON array, its texts cut as shown, its
// token's verdict and source as one number (an index in TOKENS). Instances of any version read it:
// a field is added at the end (the ninth, the suggestion, and the tenth, the defect, came later; entries
// before them have none), and what a replay needs (issue 49) after them: the query, then what was sent
// (accept, override, authorization, body, and 0 when X-CHALLENGER did not name the session). Trailing
// fields with nothing to say are left out, so an ordinary entry is as short as before.
import type { TokenVerdict } from '../challenges/near-miss-rules.js'
import type { TokenSource } from '../sessions/secrets.js'
import type { JournalEntry } from './entry.js'
import { journalText } from './texts.js'

const TOKENS: ReadonlyArray<[TokenVerdict, TokenSource] | [TokenVerdict] | []> = [
  [], ['missing'], ['valid', 'x-auth-token'], ['valid', 'bearer'], ['wrong', 'x-auth-token'], ['wrong', 'bearer']
]

function tokenCode ({ token, tokenSource }: JournalEntry): number {
  if (token === undefined) return 0
  if (token === 'missing') return 1
  return (token === 'valid' ? 2 : 4) + (tokenSource === 'bearer' ? 1 : 0)
}

function cut (text: string | null): string | null {
  return text === null ? null : journalText(text)
}

/** The entry's fields in their order: its progress and hint at PASSED and PASSED + 1. */
function fieldsOf (entry: JournalEntry): unknown[] {
  const fields: unknown[] = [entry.at, entry.method, journalText(entry.path), entry.status, tokenCode(entry), cut(entry.contentType), entry.passed, entry.hint, cut(entry.suggestion),
    entry.defect ?? null, cut(entry.query ?? null), entry.accept ?? null, entry.override ?? null, entry.authorization ?? null, entry.body ?? null, entry.challengerHeader === false ? 0 : null]
  while (fields.length > 9 && fields[fields.length - 1] === null) fields.pop()
  return fields
}
const PASSED = 6

export function encodeEntry (entry: JournalEntry): string {
  return JSON.stringify(fieldsOf(entry))
}

/**
 * The entry encoded but for its progress and hint: the text before them (ending in a comma) and after
 * them (starting with one), for a store that works them out from its session (lua/write.lua).
 */
export function entryAround (entry: JournalEntry): [head: string, tail: string] {
  const fields = fieldsOf(entry)
  return [`${JSON.stringify(fields.slice(0, PASSED)).slice(0, -1)},`, `,${JSON.stringify(fields.slice(PASSED + 2)).slice(1)}`]
}

type Wire = [number, string, string, number, number, string | null, number, number, (string | null)?, (string | null)?, (string | null)?,
  (JournalEntry['accept'] | null)?, (string | null)?, (JournalEntry['authorization'] | null)?, (JournalEntry['body'] | null)?, (0 | null)?]

export function decodeEntry (text: string): JournalEntry {
  const [at, method, path, status, token, contentType, passed, hint, suggestion = null, defect = null, query = null, accept = null, override = null, authorization = null, body = null, header = null] = JSON.parse(text) as Wire
  const [verdict, tokenSource] = TOKENS[token] as [TokenVerdict?, TokenSource?]
  const entry: JournalEntry = { at, method, path, status, ...(verdict === undefined ? {} : { token: verdict }), ...(tokenSource === undefined ? {} : { tokenSource }), contentType, passed, hint, suggestion }
  if (defect !== null) entry.defect = defect
  if (query !== null) entry.query = query
  if (accept !== null) entry.accept = accept
  if (override !== null) entry.override = override
  if (authorization !== null) entry.authorization = authorization
  if (body !== null) entry.body = body
  if (header === 0) entry.challengerHeader = false
  return entry
}
