// A session's journal: the last requests the service saw for it, newest first, each with what it
// passed and, for a near miss, why it missed. Nothing here knows HTTP: plugins/journal.ts gathers
// the facts, GET /challenger/{guid}/requests shows them.
import { RequestView } from '../http/schemas.js'
import type { JournalEntry } from './entry.js'
import { droppedTarget, ELLIPSIS, isKnown, journalText, keptText, MAX_JOURNAL_TEXT, MAX_TARGET, routeOf, targetParts, targetText } from './texts.js'

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

/** What a request sent beyond its method and texts, for a replay: a few kinds each, so entries share one of each. */
const SENT = ['accept', 'override', 'authorization', 'body', 'challengerHeader'] as const
type Sent = Readonly<Pick<JournalEntry, typeof SENT[number]>>
const sents = new Map<string, Sent>()

/**
 * How a request went: an entry but for its time, texts and what it sent, and whether its path named
 * the session (the entry then keeps :guid for the id). Few combinations occur, so entries share one of each.
 */
type Outcome = Readonly<Omit<JournalEntry, 'at' | 'path' | 'query' | 'contentType' | typeof SENT[number]> & { ownGuid: boolean }>
const outcomes = new Map<string, Outcome>()
/** An outcome's fields that the view shows as they are (a text of the client's belongs beside the path instead). */
const SHOWN = [...Object.keys(RequestView.properties).filter(field => !['id', 'at', 'path', 'query', 'contentType', ...SENT].includes(field)), 'defect']

/** Whether `outcome` is how `entry` went. */
function isOutcomeOf (outcome: Outcome, entry: JournalEntry, suggestion: string | null, ownGuid: boolean): boolean {
  if (outcome.ownGuid !== ownGuid || outcome.suggestion !== suggestion) return false
  for (const field of SHOWN) if (outcome[field as keyof Outcome] !== entry[field as keyof JournalEntry]) return false
  return true
}

/** The shared outcome of `entry`: the journal's newest one when it is the same (most requests repeat one), else the pool's. */
function outcomeOf (entry: JournalEntry, ownGuid: boolean, newest: Outcome | undefined): Outcome {
  const suggestion = routeOf(entry.suggestion)
  if (newest !== undefined && isOutcomeOf(newest, entry, suggestion, ownGuid)) return newest
  let key = `${suggestion} ${ownGuid}`
  for (const field of SHOWN) key += ` ${String(entry[field as keyof JournalEntry])}`
  let outcome = outcomes.get(key)
  if (outcome === undefined) {
    const shown = Object.fromEntries(SHOWN.filter(field => entry[field as keyof JournalEntry] !== undefined).map(field => [field, entry[field as keyof JournalEntry]]))
    outcome = { ...shown as Omit<Outcome, 'suggestion' | 'ownGuid'>, suggestion, ownGuid }
    // Bounded: past 65,536, an entry keeps its outcome to itself.
    if (outcomes.size < 65_536) outcomes.set(key, outcome)
  }
  return outcome
}

/**
 * The shared record of what `entry` sent: the journal's newest one when it is the same, else the pool's.
 * Bounded: the plugin records kinds (at most 4 × 36 × 6 × 9 × 2 combinations); past 65,536 an entry keeps its own.
 */
function sentOf (entry: JournalEntry, newest: Sent | undefined): Sent {
  if (newest !== undefined && SENT.every(field => newest[field] === entry[field])) return newest
  const key = SENT.map(field => String(entry[field])).join(' ')
  let sent = sents.get(key)
  if (sent === undefined) {
    sent = Object.fromEntries(SENT.filter(field => entry[field] !== undefined).map(field => [field, entry[field]])) as Sent
    if (sents.size < 65_536) sents.set(key, sent)
  }
  return sent
}

/** An entry as its journal keeps it: five fields, 64 bytes. */
interface Kept {
  /** Milliseconds since the journal's start: a small integer, which V8 keeps in the object itself. */
  at: number
  /** The path, and "?" and the query when there was one (texts.ts's targetText). */
  target: string
  contentType: string | null
  readonly outcome: Outcome
  readonly sent: Sent
}

/** Twelve days: a time since a journal's start stays a small integer (below 2^31). */
const MAX_SINCE = 2 ** 30

/** The bytes V8 keeps a text of `length` in: 16, and a byte a character (HTTP's texts are Latin-1) rounded up to 8. */
function bytesOf (length: number): number {
  return 16 + Math.ceil(length / 8) * 8
}

/** A journal's room for its texts: at least its newest entry's, whole (its path and query, its Content-Type). */
function textRoom (size: number): number {
  return Math.max(size * JOURNAL_TEXT_BYTES, bytesOf(MAX_TARGET) + bytesOf(MAX_JOURNAL_TEXT + 1))
}

/**
 * A session's last `size` requests, newest first. Texts the service does not know (a 404's path,
 * an unusual Content-Type) are the journal's own: equal ones share a string, together they take
 * at most its room, the newest keep theirs and older ones read "…". So a stranger's requests
 * cannot make a journal larger. A route's path with the session's id takes no room.
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
      outcome: outcomeOf(entry, ownGuid, newest?.outcome),
      sent: sentOf(entry, newest?.sent)
    }
    this.#newest = (this.#newest + 1) % this.#entries.length
    this.#entries[this.#newest] = kept
    if (!isKnown(kept.target) || (kept.contentType !== null && !isKnown(kept.contentType))) this.#fitTexts()
  }

  /** The entries, newest first. */
  entries (): JournalEntry[] {
    return [...this.#newestFirst()].map(({ at, target, contentType, outcome: { ownGuid, ...outcome }, sent }) => {
      const own = (text: string): string => ownGuid ? text.replace(GUID_PARAM, this.#guid) : text
      const [path, query] = targetParts(target)
      return {
        ...outcome,
        ...sent,
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
const ENTRY_BYTES = 72

/**
 * The most memory a session of the memory store takes with a full journal of `size` entries: the
 * session, the journal, its entries and its texts. 2,204 bytes at the default 20 (a stranger's
 * session, measured: bench/journal-memory.ts and bench/hostile-journals.ts).
 */
export function worstSessionBytes (size: number): number {
  return size === 0 ? SESSION_BYTES : SESSION_BYTES + JOURNAL_BYTES + size * ENTRY_BYTES + textRoom(size)
}
