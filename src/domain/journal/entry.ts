// A journal's entry, as the journal plugin records it and as GET /challenger/{guid}/requests shows it
// (viewOf). The view's schema, RequestView, is where a field is added: the entry's type follows.
import type { Static } from '@sinclair/typebox'
import { nearMissSays, passedIds } from '../challenges/catalogue.js'
import { didYouMean } from '../challenges/messages.js'
import type { RequestView } from '../http/schemas.js'

/** An entry as GET /challenger/{guid}/requests shows it. */
export type JournalView = Static<typeof RequestView>

/** One request as the journal records it: the view's fields, the four it works out in their raw form. Never a token, credentials or a body. */
export type JournalEntry = Omit<JournalView, 'id' | 'at' | 'passed' | 'hint'> & {
  /** When it was answered, in milliseconds since 1970. */
  at: number
  /** The progress bits this request set. */
  passed: number
  /** The near miss (its place in the catalogue's list), or -1. */
  hint: number
  /** For a 404: the real path nearest the one sent ("did you mean …?"), or null. */
  suggestion: string | null
  /** The deliberate defect that changed this request or its answer (plugins/defects.ts): never shown, revealed by a finding. */
  defect?: string
}

/** How a finding names an entry: its time in milliseconds, and the first 8 digits of its session's id. */
export function entryId (at: number, guid: string): string {
  return `${at}-${guid.slice(0, 8)}`
}

/** What the endpoint and the challenges page show of an entry. */
export function viewOf ({ at, passed, hint, suggestion, defect, ...same }: JournalEntry, guid: string): JournalView {
  const sentence = nearMissSays(hint, { method: same.method, contentType: same.contentType, tokenSource: same.tokenSource })
  return { id: entryId(at, guid), at: new Date(at).toISOString(), ...same, passed: passedIds(passed), hint: sentence ?? (suggestion === null ? null : didYouMean(suggestion)) }
}
