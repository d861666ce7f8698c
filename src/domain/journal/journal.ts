// A session's journal: the last requests the service saw for it, newest first, each with what it
// passed and, for a near miss, why it missed. Nothing here knows HTTP: plugins/journal.ts gathers
// the facts, GET /challenger/{guid}/requests shows them.
import { RequestView } from '../http/schemas.js'
import type { JournalEntry } from './entry.js'
import { droppedTarget, ELLIPSIS, isKnown, journalText, keptText, MAX_JOURNAL_TEXT, routeOf, targetParts, targetText } from './texts.js'

// The journal's other rooms: its entry and view (entry.ts), its texts (texts.ts), its form for Redis (wire.ts).
export { entryId, viewOf, type JournalEntry, type JournalView } from './entry.js'
export { journalText, keptText, knownText, MAX_JOURNAL_TEXT, sharedText } from './texts.js'
export { decodeEntry, encodeEntry, entryAround } from './wire.js'

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

/**
 * An entry as its journal keeps it: four slots of the journal's one array (32 bytes; as an object of
 * its own it was 56, and a pointer more). See Journal.
 */
const AT = 0
const TARGET = 1
const TYPE = 2
const OUTCOME = 3
const WIDTH = 4

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
 *
 * The entries live in one array, WIDTH slots each (its time since the journal's start, its path and
 * query, its Content-Type, its shared outcome): made for the first entry, doubled as entries come up
 * to `size`, then a ring. An idle session's one entry takes 4 slots, a full journal one array: a
 * session's RSS (its journal holds the creation's entry) at 50,000 idle ones went from 620 to 450
 * bytes, at 20,000 full journals of heartbeats from 1,744 to 1,009, and at 8,000 of a stranger's from
 * 1,870 to 1,060 (`RSS_KIND=idle`, `ordinary`, `hostile node dist/bench/session-rss.js`, 2026-11-29).
 */
export class Journal {
  #slots: unknown[] = []
  readonly #size: number
  readonly #guid: string
  /** The entry (index) of the newest; -1 before the first. */
  #newest = -1
  /** When entries' times count from, in milliseconds since 1970. */
  #start = 0

  constructor (size: number, guid: string) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`A journal holds at least one entry, not ${size}`)
    this.#size = size
    this.#guid = guid
  }

  /** Entries held. */
  get #held (): number {
    return this.#slots.length / WIDTH
  }

  add (entry: JournalEntry): void {
    if (this.#newest === -1) this.#start = entry.at
    if (Math.abs(entry.at - this.#start) > MAX_SINCE) this.#moveStart(entry.at)
    // Each entry's time is its own (a finding names an entry by it): one a millisecond, at most.
    const newest = this.#newest === -1 ? -1 : this.#newest * WIDTH
    const newestAt = newest === -1 ? undefined : this.#slots[newest + AT] as number | undefined
    const at = newestAt !== undefined && this.#start + newestAt >= entry.at ? this.#start + newestAt + 1 : entry.at
    const ownGuid = entry.path.includes(this.#guid)
    const route = ownGuid ? entry.path.replace(this.#guid, GUID_PARAM) : entry.path
    const target = targetText(route, entry.path, entry.query)
    const contentType = entry.contentType === null ? null : keptText(entry.contentType)
    const outcome = outcomeOf(entry, ownGuid, newestAt === undefined ? undefined : this.#slots[newest + OUTCOME] as Outcome)
    this.#newest = (this.#newest + 1) % this.#size
    if (this.#newest === this.#held) this.#grow()
    const slot = this.#newest * WIDTH
    // `| 0`: a 32-bit integer, where the difference of two times would be a number object of its own.
    this.#slots[slot + AT] = (at - this.#start) | 0
    this.#slots[slot + TARGET] = target
    this.#slots[slot + TYPE] = contentType
    this.#slots[slot + OUTCOME] = outcome
    if (!isKnown(target) || (contentType !== null && !isKnown(contentType))) this.#fitTexts()
  }

  /** Room for one more entry: twice the entries held, up to `size` (an array of exactly that many slots). */
  #grow (): void {
    const slots = new Array<unknown>(Math.min(this.#size, Math.max(1, 2 * this.#held)) * WIDTH)
    // Slots not yet used read as undefined: an entry without a time is none (see #newestFirst).
    for (let i = 0; i < this.#slots.length; i++) slots[i] = this.#slots[i]
    this.#slots = slots
  }

  /** The entries, newest first. */
  entries (): JournalEntry[] {
    return [...this.#newestFirst()].map(slot => {
      const { ownGuid, ...outcome } = this.#slots[slot + OUTCOME] as Outcome
      const contentType = this.#slots[slot + TYPE] as string | null
      const own = (text: string): string => ownGuid ? text.replace(GUID_PARAM, this.#guid) : text
      const [path, query] = targetParts(this.#slots[slot + TARGET] as string)
      return {
        ...outcome,
        at: this.#start + (this.#slots[slot + AT] as number),
        path: own(path),
        ...(query === undefined ? {} : { query }),
        contentType: contentType === null ? null : journalText(contentType),
        suggestion: outcome.suggestion === null ? null : own(outcome.suggestion)
      }
    })
  }

  /** The first slot of each entry, newest first. */
  * #newestFirst (): Generator<number> {
    const held = this.#held
    for (let i = 0; i < held; i++) {
      const slot = ((this.#newest - i + held) % held) * WIDTH
      if (this.#slots[slot + AT] !== undefined) yield slot
    }
  }

  /** Counts times from `to`; an entry then more than twelve days from it is forgotten. */
  #moveStart (to: number): void {
    const by = to - this.#start
    this.#start = to
    for (let slot = 0; slot < this.#slots.length; slot += WIDTH) {
      const was = this.#slots[slot + AT] as number | undefined
      if (was === undefined) continue
      const at = was - by
      this.#slots[slot + AT] = Math.abs(at) > MAX_SINCE ? undefined : at | 0
    }
  }

  /** Keeps the texts of its own within its room, the newest first; one string for equal ones. */
  #fitTexts (): void {
    const kept = new Map<string, string>()
    let room = textRoom(this.#size)
    const fit = (text: string, dropped: (text: string) => string): string => {
      if (isKnown(text) || text === ELLIPSIS) return text
      const same = kept.get(text)
      if (same !== undefined) return same
      room -= bytesOf(text.length)
      if (room < 0) return dropped(text)
      kept.set(text, text)
      return text
    }
    for (const slot of this.#newestFirst()) {
      this.#slots[slot + TARGET] = fit(this.#slots[slot + TARGET] as string, droppedTarget)
      const contentType = this.#slots[slot + TYPE] as string | null
      if (contentType !== null) this.#slots[slot + TYPE] = fit(contentType, () => ELLIPSIS)
    }
  }
}

/** An idle session of the memory store (npm run bench measures 237 to 258 bytes); a journal and its array, but their slots; an entry
 * (its four slots take 32 bytes: 64 leaves the bound room for the array's growth and V8's own). */
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
