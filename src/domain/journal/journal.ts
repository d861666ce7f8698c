// A session's journal: the last requests the service saw for it, newest first, each with what it
// passed and, for a near miss, why it missed. Nothing here knows HTTP: plugins/journal.ts gathers
// the facts, GET /challenger/{guid}/requests shows them.
import { RequestView } from '../http/schemas.js'
import type { JournalEntry } from './entry.js'
import { droppedTarget, ELLIPSIS, isKnown, journalText, keptText, MAX_JOURNAL_TEXT, routeOf, targetParts, targetText } from './texts.js'

// The journal's other rooms: its entry and view (entry.ts), its texts (texts.ts), its form for Redis (wire.ts).
export { entryId, viewOf, type JournalEntry, type JournalView } from './entry.js'
export { journalText, keptText, knownText, MAX_JOURNAL_TEXT, sharedText } from './texts.js'
export { decodeEntry, encodeEntry } from './wire.js'

/** Entries kept per session by default; 0 turns the journal off. */
export const DEFAULT_JOURNAL_SIZE = 20
/** The most entries a session may keep (JOURNAL_SIZE above it is refused at start-up). */
export const MAX_JOURNAL_SIZE = 100
/** A journal's room for texts of its own, in bytes per entry it holds (see Journal). */
export const JOURNAL_TEXT_BYTES = 16

/** How a route's path names its session (routes/challenger.ts). */
const GUID_PARAM = ':guid'

/** What a request sent for a replay (accept, override, …): kinds, part of an outcome while the pool has room (see outcomeOf). */
const SENT = ['accept', 'override', 'authorization', 'body', 'challengerHeader']

/**
 * How a request went: an entry but for its time and texts, and whether its path named the session
 * (the entry then keeps :guid for the id). Few combinations occur, so entries share one of each.
 */
type Outcome = Readonly<Omit<JournalEntry, 'at' | 'path' | 'query' | 'contentType'> & { ownGuid: boolean }>
/** The outcomes with what their requests sent, and (once that pool is full) without it. */
const outcomes = new Map<string, Outcome>()
const plainOutcomes = new Map<string, Outcome>()
const POOL = 65_536
/** An outcome's fields that the view shows as they are (a text of the client's belongs beside the path instead). */
const SHOWN = [...Object.keys(RequestView.properties).filter(field => !['id', 'at', 'path', 'query', 'contentType'].includes(field)), 'defect']
const PLAIN = SHOWN.filter(field => !SENT.includes(field))

/** Whether `outcome` is how `entry` went. */
function isOutcomeOf (outcome: Outcome, entry: JournalEntry, suggestion: string | null, ownGuid: boolean): boolean {
  if (outcome.ownGuid !== ownGuid || outcome.suggestion !== suggestion) return false
  for (const field of SHOWN) if (outcome[field as keyof Outcome] !== entry[field as keyof JournalEntry]) return false
  return true
}

/** The key of `entry`'s outcome with `fields` in a pool. */
function keyOf (fields: readonly string[], entry: JournalEntry, suggestion: string | null, ownGuid: boolean): string {
  let key = `${suggestion} ${ownGuid}`
  for (const field of fields) key += ` ${String(entry[field as keyof JournalEntry])}`
  return key
}

/** A new outcome of `entry`, with `fields`. */
function outcomeWith (fields: readonly string[], entry: JournalEntry, suggestion: string | null, ownGuid: boolean): Outcome {
  const shown = Object.fromEntries(fields.filter(field => entry[field as keyof JournalEntry] !== undefined).map(field => [field, entry[field as keyof JournalEntry]]))
  return { ...shown as Omit<Outcome, 'suggestion' | 'ownGuid'>, suggestion, ownGuid }
}

/**
 * The shared outcome of `entry`: the journal's newest one when it is the same (most requests repeat one), else the pool's.
 * Bounded: past POOL outcomes, an entry gets the plain one, without what its request sent (its replay sends less), so a
 * stranger's combinations of kinds cost no memory; past POOL plain ones too, an entry keeps its outcome to itself.
 */
function outcomeOf (entry: JournalEntry, ownGuid: boolean, newest: Outcome | undefined): Outcome {
  const suggestion = routeOf(entry.suggestion)
  if (newest !== undefined && isOutcomeOf(newest, entry, suggestion, ownGuid)) return newest
  const key = keyOf(SHOWN, entry, suggestion, ownGuid)
  let outcome = outcomes.get(key)
  if (outcome !== undefined) return outcome
  if (outcomes.size < POOL) {
    outcome = outcomeWith(SHOWN, entry, suggestion, ownGuid)
    outcomes.set(key, outcome)
    return outcome
  }
  const plainKey = keyOf(PLAIN, entry, suggestion, ownGuid)
  outcome = plainOutcomes.get(plainKey)
  if (outcome !== undefined) return outcome
  outcome = outcomeWith(PLAIN, entry, suggestion, ownGuid)
  if (plainOutcomes.size < POOL) plainOutcomes.set(plainKey, outcome)
  return outcome
}

/** An entry as its journal keeps it: four fields, 56 bytes. */
interface Kept {
  /** Milliseconds since the journal's start: a small integer, which V8 keeps in the object itself. */
  at: number
  /** The path, and "?" and the query when there was one (texts.ts's targetText). */
  target: string
  contentType: string | null
  readonly outcome: Outcome
}

/** Twelve days: a time since a journal's start stays a small integer (below 2^31). */
const MAX_SINCE = 2 ** 30

/** The bytes V8 keeps a text of `length` in: 16, and a byte a character (HTTP's texts are Latin-1) rounded up to 8. */
function bytesOf (length: number): number {
  return 16 + Math.ceil(length / 8) * 8
}

/** A journal's room for its texts: at least its newest entry's path and Content-Type, whole (and its query, unless all three are long). */
function textRoom (size: number): number {
  return Math.max(size * JOURNAL_TEXT_BYTES, 2 * bytesOf(MAX_JOURNAL_TEXT + 1))
}

/**
 * A session's last `size` requests, newest first. Texts the service does not know (a 404's path,
 * a query string, an unusual Content-Type) are the journal's own: equal ones share a string, together
 * they take at most its room, the newest keep theirs and older ones read "…" (a route's path keeps
 * itself, its query "…"). So a stranger's requests cannot make a journal larger. A route's path with
 * the session's id takes no room, nor with ?hints=true.
 */
export class Journal {
  readonly #entries: Array<Kept | undefined>
  readonly #guid: string
  /** The slot of the newest entry; -1 before the first. */
  #newest = -1
  /** When entries' times count from, in milliseconds since 1970. */
  #start = 0

  constructor (size: number, guid: string) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`A journal holds at least one entry, not ${size}`)
    this.#entries = new Array<Kept | undefined>(size)
    this.#guid = guid
  }

  add (entry: JournalEntry): void {
    if (this.#newest === -1) this.#start = entry.at
    if (Math.abs(entry.at - this.#start) > MAX_SINCE) this.#moveStart(entry.at)
    // Each entry's time is its own (a finding names an entry by it): one a millisecond, at most.
    const newest = this.#newest === -1 ? undefined : this.#entries[this.#newest]
    const at = newest !== undefined && this.#start + newest.at >= entry.at ? this.#start + newest.at + 1 : entry.at
    const ownGuid = entry.path.includes(this.#guid)
    const route = ownGuid ? entry.path.replace(this.#guid, GUID_PARAM) : entry.path
    const kept: Kept = {
      // `| 0`: a 32-bit integer, where the difference of two times would be a number object of its own.
      at: (at - this.#start) | 0,
      target: targetText(route, entry.path, entry.query),
      contentType: entry.contentType === null ? null : keptText(entry.contentType),
      outcome: outcomeOf(entry, ownGuid, newest?.outcome)
    }
    this.#newest = (this.#newest + 1) % this.#entries.length
    this.#entries[this.#newest] = kept
    if (!isKnown(kept.target) || (kept.contentType !== null && !isKnown(kept.contentType))) this.#fitTexts()
  }

  /** The entries, newest first. */
  entries (): JournalEntry[] {
    return [...this.#newestFirst()].map(({ at, target, contentType, outcome: { ownGuid, ...outcome } }) => {
      const own = (text: string): string => ownGuid ? text.replace(GUID_PARAM, this.#guid) : text
      const [path, query] = targetParts(target)
      return {
        ...outcome,
        at: this.#start + at,
        path: own(path),
        ...(query === undefined ? {} : { query }),
        contentType: contentType === null ? null : journalText(contentType),
        suggestion: outcome.suggestion === null ? null : own(outcome.suggestion)
      }
    })
  }

  * #newestFirst (): Generator<Kept> {
    const size = this.#entries.length
    for (let i = 0; i < size; i++) {
      const kept = this.#entries[(this.#newest - i + size) % size]
      if (kept !== undefined) yield kept
    }
  }

  /** Counts times from `to`; an entry then more than twelve days from it is forgotten. */
  #moveStart (to: number): void {
    const by = to - this.#start
    this.#start = to
    for (const [slot, kept] of this.#entries.entries()) {
      if (kept === undefined) continue
      const at = kept.at - by
      if (Math.abs(at) > MAX_SINCE) this.#entries[slot] = undefined
      else kept.at = at | 0
    }
  }

  /** Keeps the texts of its own within its room, the newest first; one string for equal ones. */
  #fitTexts (): void {
    const kept = new Map<string, string>()
    let room = textRoom(this.#entries.length)
    const fit = (text: string, dropped: (text: string) => string): string => {
      if (isKnown(text) || text === ELLIPSIS) return text
      const same = kept.get(text)
      if (same !== undefined) return same
      room -= bytesOf(text.length)
      if (room < 0) return dropped(text)
      kept.set(text, text)
      return text
    }
    for (const entry of this.#newestFirst()) {
      entry.target = fit(entry.target, droppedTarget)
      if (entry.contentType !== null) entry.contentType = fit(entry.contentType, () => ELLIPSIS)
    }
  }
}

/** An idle session of the memory store (npm run bench measures 237 to 258 bytes); a journal and its array, but their slots; an entry and its slot. */
const SESSION_BYTES = 300
const JOURNAL_BYTES = 120
const ENTRY_BYTES = 64

/**
 * The most memory a session of the memory store takes with a full journal of `size` entries: the
 * session, the journal, its entries and its texts. 2,020 bytes at the default 20: a bound, above what a
 * stranger's session measures (docs/benchmarks.md, "A stranger's journals").
 */
export function worstSessionBytes (size: number): number {
  return size === 0 ? SESSION_BYTES : SESSION_BYTES + JOURNAL_BYTES + size * ENTRY_BYTES + textRoom(size)
}
