// A session's journal: the last requests the service saw for it, newest first, each with what it
// passed and, for a near miss, why it missed. Entries are kept packed, four integers each in one
// Int32Array per session, and the few texts the service cannot know in advance (a 404's path, an
// unusual Content-Type) as bytes in a bounded area of their own per journal; unpacked only when the
// journal is read. Nothing here knows HTTP: the journal plugin gathers the facts.
import { nearMissSays, passedIds, type SeenRequest } from '../challenges/catalogue.js'
import type { TokenVerdict } from '../challenges/challenge-list.js'
import type { TokenSource } from '../sessions/secrets.js'
import { didYouMean } from '../challenges/messages.js'
import { EVERY_METHOD } from '../http/methods.js'
import { CHUNK, Slab } from './slab.js'

/** Entries kept per session by default; 0 turns the journal off. */
export const DEFAULT_JOURNAL_SIZE = 20
/** The most entries a session may keep (JOURNAL_SIZE above it is refused at start-up). */
export const MAX_JOURNAL_SIZE = 100
/** A path or a Content-Type longer than this is cut, with … at the end: both are the client's. */
export const MAX_JOURNAL_TEXT = 100
/**
 * Bytes (UTF-8) of texts of its own a journal keeps, per entry it holds: 640 for a journal of 20
 * (at least 512, so that the newest entry's path and type always fit whole).
 * The newest texts are kept; an older one pushed out reads as "…". A learner's typo'd path takes
 * a dozen bytes; a stranger's 100-character paths cannot make a journal any larger.
 */
export const JOURNAL_TEXT_BYTES = 32

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
  /** For a 404: the real path nearest the one sent ("did you mean …?"), or null. */
  suggestion: string | null
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
//   3: hint + 1 (7 bits) | suggestion (7 bits) << 7 | suggestion's own guid (1 bit) << 15
//      | path (8 bits) << 16 | content type (7 bits) << 24 | own guid (1 bit) << 31
// Paths and content types are codes into one table of strings the service knows in advance (its
// routes' paths, registered as they are made, and the usual media types): 0 is none, 1 is "another
// one", kept as bytes in the journal's text area (see Journals), only for the entries that have one
// (a 404's path, an unusual type). A route's path with the session's own id in it (GET
// /challenger/{guid}) is the route's code with the "own guid" bit: no text of its own.
// A 404's suggestion is always a route's path: its code, with the session's id as for the path, or
// the route's path as registered (`/challenger/:guid/requests`) when it names another id; never a
// text of its own (none is kept past 126 known texts).
const EPOCH = Date.UTC(2026, 0, 1)
const TOKENS: ReadonlyArray<[TokenVerdict, TokenSource] | [TokenVerdict] | []> = [
  [], ['missing'], ['valid', 'x-auth-token'], ['valid', 'bearer'], ['wrong', 'x-auth-token'], ['wrong', 'bearer']
]
const METHOD_CODES = new Map(EVERY_METHOD.map((method, code) => [method, code]))
const NONE = 0
const OTHER = 1
const OWN_GUID = 1 << 31
const SUGGESTION_OWN_GUID = 1 << 15
/** How a route's path names its session (routes/challenger.ts): replaced by the session's id when read. */
const GUID_PARAM = ':guid'
const TEXTS: string[] = ['', '']
const TEXT_CODES = new Map<string, number>()
/** The codes of the known texts with a parameter (`/challenger/:guid`), and their segments. */
const PATTERNS: Array<[number, string[]]> = []

/**
 * Makes `text` one of the strings entries refer to by a code (a route's path, a usual media type),
 * so that an entry with it holds no string of its own. Bounded: past 127 strings, text is kept per entry.
 */
export function knownText (text: string): void {
  if (TEXT_CODES.has(text) || TEXTS.length >= 128) return
  TEXT_CODES.set(text, TEXTS.length)
  if (text.includes('/:')) PATTERNS.push([TEXTS.length, text.split('/')])
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

/** The code of the route's path that `path` is with `guid` in place of :guid, or OTHER. */
function guidPathCode (path: string, guid: string): number {
  const at = path.indexOf(guid)
  return at === -1 ? OTHER : TEXT_CODES.get(path.slice(0, at) + GUID_PARAM + path.slice(at + guid.length)) ?? OTHER
}

/** The code of the route whose path `path` is, with any values in its parameters (another session's id), or NONE. */
function patternCode (path: string): number {
  const segments = path.split('/')
  const found = PATTERNS.find(([, pattern]) => pattern.length === segments.length && pattern.every((s, i) => s.startsWith(':') || s === segments[i]))
  return found === undefined ? NONE : found[0]
}

/** A suggestion's 8 bits of the last integer (code, and whether the session's id is in it): a code and nothing of its own. */
function suggestionBits (suggestion: string | null, guid: string): number {
  if (suggestion === null) return 0
  const code = TEXT_CODES.get(suggestion)
  if (code !== undefined) return code << 7
  const route = guidPathCode(suggestion, guid)
  return route === OTHER ? patternCode(suggestion) << 7 : route << 7 | SUGGESTION_OWN_GUID
}

function tokenCode (entry: JournalEntry): number {
  if (entry.token === undefined) return 0
  if (entry.token === 'missing') return 1
  return (entry.token === 'valid' ? 2 : 4) + (entry.tokenSource === 'bearer' ? 1 : 0)
}

const INTS = 4
/** The longest text kept, in bytes: its length is one byte (a 100-character text in Latin-1, as HTTP's are, is at most 200). */
const MAX_TEXT_BYTES = 255

/** Bytes of texts in the text area of a journal of `size`: room for the newest entry's two texts whole, however small the journal. */
function textRoom (size: number): number {
  return Math.max(size * JOURNAL_TEXT_BYTES, 2 * (MAX_TEXT_BYTES + 1))
}

/** An idle session of the memory store, in bytes: npm run bench measures 237 to 258 of heap. */
const SESSION_BYTES = 300

/**
 * The most memory a session of the memory store can take with a full journal of `size` entries,
 * every one with a path and a type of its own (a stranger's): the session, its entries, its text
 * area and the Map entry that finds the area. 1,330 bytes at the default 20; bench/hostile-journals.ts
 * measures 1,145 to 1,192 bytes of RSS per session (8,540 to 9,437 before the text area).
 */
export function worstSessionBytes (size: number): number {
  return size === 0 ? SESSION_BYTES : SESSION_BYTES + 4 * (1 + size * INTS) + 2 + textRoom(size) + 64
}

/** Bytes of "…" in UTF-8, which ends a text cut to fit. */
const ELLIPSIS_BYTES = 3
/** Where a text is made before it is copied into a journal's area: one for the whole process. */
const scratch = Buffer.alloc(MAX_TEXT_BYTES + 4)

/**
 * The journals of one store, all of one size, in shared Int32Array chunks: a session holds only
 * its journal's number, and no object, array or buffer of its own (a buffer per session would cost
 * more in bookkeeping than its 320 bytes of entries). Each journal is a count of the entries ever
 * added, then `size` entries, newest overwriting oldest. Numbers of released journals are reused.
 *
 * A journal whose entries have texts of their own (OTHER) has a text area too, in shared chunks
 * of bytes: two bytes saying how many are used, then `size` × JOURNAL_TEXT_BYTES bytes (at least
 * 512) of texts, oldest first, each its UTF-8 bytes then its length in one byte (so that they are
 * read from the newest back). A new text that does not fit pushes the oldest bytes out; an entry
 * whose text was pushed out shows "…". So a journal never holds more than its area, whatever the
 * client sends.
 */
export class Journals {
  readonly #size: number
  readonly #stride: number
  readonly #ints: Slab<Int32Array>
  /** The Int32Array chunks of #ints, kept at hand for add. */
  readonly #chunks: readonly Int32Array[]
  readonly #texts: Slab<Buffer>
  /** The bytes of a text area after its two of length. */
  readonly #room: number
  /** Text areas, by journal: only journals with texts of their own have one. */
  readonly #areas = new Map<number, number>()

  constructor (size: number) {
    this.#size = size
    this.#stride = 1 + size * INTS
    this.#room = textRoom(size)
    this.#ints = new Slab(this.#stride, units => new Int32Array(units))
    this.#chunks = this.#ints.chunks
    this.#texts = new Slab(2 + this.#room, units => Buffer.alloc(units))
  }

  /** A new, empty journal's number. */
  open (): number {
    const journal = this.#ints.open()
    this.#ints.chunk(journal)[this.#ints.start(journal)] = 0
    return journal
  }

  /** Gives the journal back: its number will serve another session. */
  close (journal: number): void {
    const area = this.#areas.get(journal)
    if (area !== undefined) {
      this.#areas.delete(journal)
      this.#texts.close(area)
    }
    this.#ints.close(journal)
  }

  /** Adds `entry` to the journal of the session `guid`. */
  add (journal: number, entry: JournalEntry, guid: string): void {
    // Slab's chunk and start, inlined: this runs on every request.
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
    ints[at + 3] = ((entry.hint + 1) & 127) | suggestionBits(entry.suggestion, guid) | path << 16 | type << 24
    // Most entries have no text of their own: nothing more for them.
    if (path === OTHER || type === OTHER) this.#own(journal, ints, at + 3, entry, guid)
    // The count stays below twice the size: from `size` on the journal is full, and count % size
    // is the next slot, so stepping back from 2 × size to size changes neither.
    ints[base] = added + 1 === 2 * this.#size ? this.#size : added + 1
  }

  /**
   * The texts of its own of the entry just packed, whose last integer is `ints[last]`, kept in
   * the text area; but a path with the session's `guid` in it becomes its route's code instead.
   */
  #own (journal: number, ints: Int32Array, last: number, entry: JournalEntry, guid: string): void {
    const word = ints[last] as number
    if ((word >> 16 & 255) === OTHER) {
      const route = guidPathCode(entry.path, guid)
      if (route === OTHER) this.#keep(journal, entry.path)
      else ints[last] = (word & ~(255 << 16)) | route << 16 | OWN_GUID
    }
    if ((word >> 24 & 127) === OTHER) this.#keep(journal, entry.contentType as string)
  }

  /** Puts `text` at the end of the journal's text area, cut to MAX_TEXT_BYTES, pushing the oldest bytes out as needed. */
  #keep (journal: number, text: string): void {
    let area = this.#areas.get(journal)
    if (area === undefined) {
      area = this.#texts.open()
      this.#areas.set(journal, area)
      this.#texts.chunk(area).writeUInt16LE(0, this.#texts.start(area))
    }
    // Whole characters only: with 4 bytes to spare (the longest character), more than
    // MAX_TEXT_BYTES written means it does not fit, and it is written again, shorter, with "…" after it.
    let length = scratch.write(text, 0, MAX_TEXT_BYTES + 4, 'utf8')
    if (length > MAX_TEXT_BYTES) {
      const kept = scratch.write(text, 0, MAX_TEXT_BYTES - ELLIPSIS_BYTES, 'utf8')
      length = kept + scratch.write('…', kept, 'utf8')
    }
    const bytes = this.#texts.chunk(area)
    const start = this.#texts.start(area)
    const texts = start + 2
    let used = bytes.readUInt16LE(start)
    const over = used + length + 1 - this.#room
    if (over > 0) {
      bytes.copyWithin(texts, texts + over, texts + used)
      used -= over
    }
    scratch.copy(bytes, texts + used, 0, length)
    bytes[texts + used + length] = length
    bytes.writeUInt16LE(used + length + 1, start)
  }

  /** The journal's entries, newest first, its own paths with `guid` in them. */
  entries (journal: number, guid: string): JournalEntry[] {
    const ints = this.#ints.chunk(journal)
    const base = this.#ints.start(journal)
    const added = ints[base] as number
    const count = Math.min(added, this.#size)
    const area = this.#areas.get(journal)
    const bytes = area === undefined ? undefined : this.#texts.chunk(area)
    const texts = area === undefined ? 0 : this.#texts.start(area) + 2
    // Where the text before this one ends, from the newest back; -1 once one was found pushed out.
    let end = bytes === undefined ? -1 : texts + bytes.readUInt16LE(texts - 2)
    const own = (): string => {
      if (end <= texts) return '…'
      const length = (bytes as Buffer)[end - 1] as number
      const start = end - 1 - length
      if (start < texts) {
        end = -1
        return '…'
      }
      end = start
      return (bytes as Buffer).toString('utf8', start, start + length)
    }
    const text = (code: number): string | null => code === NONE ? null : TEXTS[code] as string
    const out: JournalEntry[] = []
    for (let i = 1; i <= count; i++) {
      const at = base + 1 + ((added - i) % this.#size) * INTS
      const word = ints[at + 1] as number
      const last = ints[at + 3] as number
      const [token, tokenSource] = TOKENS[(word >> 17) & 7] as [TokenVerdict?, TokenSource?]
      const pathCode = (last >> 16) & 255
      const typeCode = (last >> 24) & 127
      // The type's bytes came after the path's: read back, it comes first.
      const contentType = typeCode === OTHER ? own() : text(typeCode)
      // A path is never null: it is a known text, a route's with the session's id, or one of its own.
      const path = pathCode === OTHER ? own() : last < 0 ? (TEXTS[pathCode] as string).replace(GUID_PARAM, guid) : TEXTS[pathCode] as string
      const suggested = text((last >> 7) & 127)
      const suggestion = suggested !== null && (last & SUGGESTION_OWN_GUID) !== 0 ? suggested.replace(GUID_PARAM, guid) : suggested
      out.push({
        at: EPOCH + (ints[at] as number) * 1000 + (word & 1023),
        method: EVERY_METHOD[(word >> 10) & 127] as string,
        path,
        status: (word >> 20) & 1023,
        ...(token === undefined ? {} : { token }),
        ...(tokenSource === undefined ? {} : { tokenSource }),
        contentType,
        passed: ints[at + 2] as number,
        hint: (last & 127) - 1,
        suggestion
      })
    }
    return out
  }
}

/** `text` cut to MAX_JOURNAL_TEXT characters when longer; null stays null. Cheap for a text that fits. */
function cut (text: string | null): string | null {
  return text === null || text.length <= MAX_JOURNAL_TEXT ? text : `${text.slice(0, MAX_JOURNAL_TEXT - 1)}…`
}

/**
 * An entry as a short string, for a store across the network (its strings in full: codes are per
 * process), its path and type cut as the journal plugin cuts them, whoever made the entry.
 */
export function encodeEntry (entry: JournalEntry): string {
  return JSON.stringify([entry.at, entry.method, cut(entry.path), entry.status, tokenCode(entry), cut(entry.contentType), entry.passed, entry.hint, cut(entry.suggestion)])
}

export function decodeEntry (text: string): JournalEntry {
  // An entry written before suggestions were (a ninth element) has none.
  const [at, method, path, status, token, contentType, passed, hint, suggestion = null] = JSON.parse(text) as [number, string, string, number, number, string | null, number, number, (string | null)?]
  const [verdict, tokenSource] = TOKENS[token] as [TokenVerdict?, TokenSource?]
  const verdicts = { ...(verdict === undefined ? {} : { token: verdict }), ...(tokenSource === undefined ? {} : { tokenSource }) }
  return { at, method, path, status, ...verdicts, contentType, passed, hint, suggestion }
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
    hint: nearMissSays(entry.hint, seen) ?? (entry.suggestion === null ? null : didYouMean(entry.suggestion))
  }
}

/** TEMPORARY (replaced by the plain journal module): a session's entries, newest first. */
export class Journal {
  readonly #size: number
  readonly #entries: JournalEntry[] = []
  constructor (size: number, _guid: string) {
    this.#size = size
  }

  add (entry: JournalEntry): void {
    this.#entries.unshift(entry)
    if (this.#entries.length > this.#size) this.#entries.pop()
  }

  entries (): JournalEntry[] {
    return [...this.#entries]
  }
}
