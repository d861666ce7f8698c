// A session's journal: the last requests the service saw for it, newest first, each with what it
// passed and, for a near miss, why it missed. Entries are kept packed, four integers each in one
// Int32Array per session (strings only for a path or type the service does not know in advance),
// and unpacked only when the journal is read. Nothing here knows HTTP: the journal plugin gathers the facts.
import { nearMissSays, passedIds, type SeenRequest } from './catalogue.js'
import type { TokenVerdict } from './challenge-list.js'
import { EVERY_METHOD } from './methods.js'

/** Entries kept per session by default; 0 turns the journal off. */
export const DEFAULT_JOURNAL_SIZE = 20
/** The most entries a session may keep (JOURNAL_SIZE above it is refused at start-up). */
export const MAX_JOURNAL_SIZE = 100
/** A path or a Content-Type longer than this is cut, with … at the end: both are the client's. */
export const MAX_JOURNAL_TEXT = 200

export type TokenSource = 'x-auth-token' | 'bearer'

/** One request as the journal keeps it. The token value, credentials and bodies are never in it. */
export interface JournalEntry {
  /** When it was answered, in milliseconds since 1970. */
  at: number
  method: string
  /** The path, without the query string (cut at MAX_JOURNAL_TEXT). */
  path: string
  status: number
  /** On routes that take a token: whether one came and was the session's; undefined elsewhere. */
  token?: TokenVerdict
  /** How the token came, when one did. */
  tokenSource?: TokenSource
  /** The media type of Content-Type, without parameters; null when there was none. */
  contentType: string | null
  /** The progress bits this request set. */
  passed: number
  /** The near miss (its place in the catalogue's list), or -1. */
  hint: number
}

/** An entry as GET /challenger/{guid}/requests shows it. */
export interface JournalView {
  at: string
  method: string
  path: string
  status: number
  token?: TokenVerdict
  tokenSource?: TokenSource
  contentType: string | null
  passed: number[]
  hint: string | null
}

/** `text` cut to MAX_JOURNAL_TEXT characters, as a string of its own (never a slice of a whole request). */
export function journalText (text: string): string {
  const cut = text.length > MAX_JOURNAL_TEXT ? `${text.slice(0, MAX_JOURNAL_TEXT - 1)}…` : text
  return JSON.parse(JSON.stringify(cut)) as string
}

// Packing. An entry is four 32-bit integers in one Int32Array per session:
//   0: seconds since 2026 (34 years of them)
//   1: milliseconds (10 bits) | method (7 bits) << 10 | token (3 bits) << 17 | status (10 bits) << 20
//   2: the progress bits it set
//   3: hint + 1 (16 bits) | path (8 bits) << 16 | content type (7 bits) << 24
// Paths and content types are codes into one table of strings the service knows in advance (its
// routes' paths, registered as they are made, and the usual media types): 0 is none, 1 is "another
// one", kept as a string beside the integers, only for the entries that have one (a 404's path, a
// /challenger/{guid} path, an unusual type).
const EPOCH = Date.UTC(2026, 0, 1)
const TOKENS: ReadonlyArray<[TokenVerdict, TokenSource] | [TokenVerdict] | []> = [
  [], ['missing'], ['valid', 'x-auth-token'], ['valid', 'bearer'], ['wrong', 'x-auth-token'], ['wrong', 'bearer']
]
const METHOD_CODES = new Map(EVERY_METHOD.map((method, code) => [method, code]))
const NONE = 0
const OTHER = 1
const TEXTS: string[] = ['', '']
const TEXT_CODES = new Map<string, number>()

/**
 * Makes `text` one of the strings entries refer to by a code (a route's path, a usual media type),
 * so that an entry with it holds no string of its own. Bounded: past 127 strings, text is kept per entry.
 */
export function knownText (text: string): void {
  if (TEXT_CODES.has(text) || TEXTS.length >= 128) return
  TEXT_CODES.set(text, TEXTS.length)
  TEXTS.push(text)
}

for (const type of ['application/json', 'application/xml', 'text/xml', 'text/plain', 'text/html',
  'application/x-www-form-urlencoded', 'multipart/form-data', 'application/octet-stream']) knownText(type)

/** The shared copy of `text` when it is a known one (no string per entry), else `text`. */
export function sharedText (text: string): string {
  const code = TEXT_CODES.get(text)
  return code === undefined ? text : TEXTS[code] as string
}

/**
 * What an entry keeps of `text`: the shared copy when it is a known one, else a string of its own,
 * cut (journalText). Known texts are looked up first: copying a string costs more than finding it.
 */
export function keptText (text: string): string {
  const code = TEXT_CODES.get(text)
  return code === undefined ? journalText(text) : TEXTS[code] as string
}

function textCode (text: string | null): number {
  return text === null ? NONE : TEXT_CODES.get(text) ?? OTHER
}

function tokenCode (entry: JournalEntry): number {
  if (entry.token === undefined) return 0
  if (entry.token === 'missing') return 1
  return (entry.token === 'valid' ? 2 : 4) + (entry.tokenSource === 'bearer' ? 1 : 0)
}

const INTS = 4
/** Journals per chunk of a slab: 256 journals of 20 entries are 82 KB. */
const CHUNK = 256

/**
 * The journals of one store, all of one size, in shared Int32Array chunks: a session holds only
 * its journal's number, and no object, array or buffer of its own (a buffer per session would cost
 * more in bookkeeping than its 320 bytes of entries). Each journal is a count of the entries ever
 * added, then `size` entries, newest overwriting oldest. Numbers of released journals are reused.
 */
export class Journals {
  readonly #size: number
  readonly #stride: number
  readonly #chunks: Int32Array[] = []
  readonly #free: number[] = []
  #made = 0
  /** Path and content type of entries whose are not known strings, by journal: rare. */
  readonly #texts = new Map<number, Array<string | null>>()

  constructor (size: number) {
    this.#size = size
    this.#stride = 1 + size * INTS
  }

  /** A new, empty journal's number. */
  open (): number {
    const reused = this.#free.pop()
    const journal = reused ?? this.#made++
    const chunk = Math.floor(journal / CHUNK)
    if (chunk === this.#chunks.length) this.#chunks.push(new Int32Array(CHUNK * this.#stride))
    const [ints, at] = this.#place(journal)
    ints[at] = 0
    return journal
  }

  /** Gives the journal back: its number will serve another session. With none left open, the chunks go. */
  close (journal: number): void {
    this.#texts.delete(journal)
    this.#free.push(journal)
    if (this.#free.length === this.#made) {
      this.#chunks.length = 0
      this.#free.length = 0
      this.#made = 0
    }
  }

  #place (journal: number): [Int32Array, number] {
    return [this.#chunks[Math.floor(journal / CHUNK)] as Int32Array, (journal % CHUNK) * this.#stride]
  }

  add (journal: number, entry: JournalEntry): void {
    // #place's work, without its array: this runs on every request.
    const ints = this.#chunks[Math.floor(journal / CHUNK)] as Int32Array
    const base = (journal % CHUNK) * this.#stride
    const added = ints[base] as number
    const slot = added % this.#size
    const at = base + 1 + slot * INTS
    const since = entry.at - EPOCH
    const seconds = Math.floor(since / 1000)
    const path = textCode(entry.path)
    const type = textCode(entry.contentType)
    ints[at] = seconds
    ints[at + 1] = (since - seconds * 1000) | (METHOD_CODES.get(entry.method) ?? 0) << 10 | tokenCode(entry) << 17 | (entry.status & 1023) << 20
    ints[at + 2] = entry.passed
    ints[at + 3] = ((entry.hint + 1) & 0xffff) | path << 16 | type << 24
    // Most journals have no text of their own: no lookup for them while no journal has one.
    let texts = this.#texts.size === 0 ? undefined : this.#texts.get(journal)
    if (path === OTHER || type === OTHER || texts !== undefined) {
      if (texts === undefined) {
        texts = new Array<string | null>(this.#size * 2).fill(null)
        this.#texts.set(journal, texts)
      }
      texts[slot * 2] = path === OTHER ? entry.path : null
      texts[slot * 2 + 1] = type === OTHER ? entry.contentType : null
    }
    // The count stays below twice the size: from `size` on the journal is full, and count % size
    // is the next slot, so stepping back from 2 × size to size changes neither.
    ints[base] = added + 1 === 2 * this.#size ? this.#size : added + 1
  }

  #entry (journal: number, slot: number): JournalEntry {
    const [ints, base] = this.#place(journal)
    const at = base + 1 + slot * INTS
    const word = ints[at + 1] as number
    const last = ints[at + 3] as number
    const [token, tokenSource] = TOKENS[(word >> 17) & 7] as [TokenVerdict?, TokenSource?]
    const texts = this.#texts.get(journal)
    // An entry with a text of its own (OTHER) always has it kept in `texts`.
    const text = (code: number, which: number): string | null =>
      code === NONE ? null : code === OTHER ? (texts as Array<string | null>)[slot * 2 + which] as string : TEXTS[code] as string
    return {
      at: EPOCH + (ints[at] as number) * 1000 + (word & 1023),
      method: EVERY_METHOD[(word >> 10) & 127] as string,
      // A path is never null: it is a known text or one of its own.
      path: text((last >> 16) & 255, 0) as string,
      status: (word >> 20) & 1023,
      ...(token === undefined ? {} : { token }),
      ...(tokenSource === undefined ? {} : { tokenSource }),
      contentType: text((last >> 24) & 127, 1),
      passed: ints[at + 2] as number,
      hint: (last & 0xffff) - 1
    }
  }

  /** The journal's entries, newest first. */
  entries (journal: number): JournalEntry[] {
    const [ints, base] = this.#place(journal)
    const added = ints[base] as number
    const count = Math.min(added, this.#size)
    const out: JournalEntry[] = []
    for (let i = 1; i <= count; i++) out.push(this.#entry(journal, (added - i) % this.#size))
    return out
  }
}

/** An entry as a short string, for a store across the network (its strings in full: codes are per process). */
export function encodeEntry (entry: JournalEntry): string {
  return JSON.stringify([entry.at, entry.method, entry.path, entry.status, tokenCode(entry), entry.contentType, entry.passed, entry.hint])
}

export function decodeEntry (text: string): JournalEntry {
  const [at, method, path, status, token, contentType, passed, hint] = JSON.parse(text) as [number, string, string, number, number, string | null, number, number]
  const [verdict, tokenSource] = TOKENS[token] as [TokenVerdict?, TokenSource?]
  return {
    at,
    method,
    path,
    status,
    ...(verdict === undefined ? {} : { token: verdict }),
    ...(tokenSource === undefined ? {} : { tokenSource }),
    contentType,
    passed,
    hint
  }
}

/** What the endpoint and the challenges page show of an entry. */
export function viewOf (entry: JournalEntry): JournalView {
  const seen: SeenRequest = { method: entry.method, contentType: entry.contentType, ...(entry.tokenSource === undefined ? {} : { tokenSource: entry.tokenSource }) }
  return {
    at: new Date(entry.at).toISOString(),
    method: entry.method,
    path: entry.path,
    status: entry.status,
    ...(entry.token === undefined ? {} : { token: entry.token }),
    ...(entry.tokenSource === undefined ? {} : { tokenSource: entry.tokenSource }),
    contentType: entry.contentType,
    passed: passedIds(entry.passed),
    hint: nearMissSays(entry.hint, seen)
  }
}
