// A journal entry for a store across the network (Redis): a JSON array, its texts cut as shown, its
// token's verdict and source as one number (an index in TOKENS). Instances of any version read it:
// a field is added at the end (the ninth, the suggestion, and the tenth, the defect, came later; entries before them have none).
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

export function encodeEntry (entry: JournalEntry): string {
  const fields = [entry.at, entry.method, journalText(entry.path), entry.status, tokenCode(entry), cut(entry.contentType), entry.passed, entry.hint, cut(entry.suggestion)]
  if (entry.defect !== undefined) fields.push(entry.defect)
  return JSON.stringify(fields)
}

export function decodeEntry (text: string): JournalEntry {
  const [at, method, path, status, token, contentType, passed, hint, suggestion = null, defect = null] = JSON.parse(text) as [number, string, string, number, number, string | null, number, number, (string | null)?, (string | null)?]
  const [verdict, tokenSource] = TOKENS[token] as [TokenVerdict?, TokenSource?]
  return { at, method, path, status, ...(verdict === undefined ? {} : { token: verdict }), ...(tokenSource === undefined ? {} : { tokenSource }), contentType, passed, hint, suggestion, ...(defect === null ? {} : { defect }) }
}
