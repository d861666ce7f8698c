// "Did you mean …?" for a 404: the real path nearest the one a learner sent. The service knows its
// paths from its routes as they are registered (plugins/errors.ts feeds them in); nothing here knows
// Fastify. Asked only for a 404, with bounded work: a path longer than MAX_SUGGESTED_PATH gets no
// suggestion, and each comparison gives up past two edits.

/** A path (prefix included, query string left out) longer than this gets no suggestion. */
export const MAX_SUGGESTED_PATH = 200
import { API_BASE as API } from '../http/api-base.js'

/** One real path: its API base, and its segments (`:name` for a parameter), whole and after the base. */
interface Known {
  /** '' or '/api'. */
  base: string
  /** The segments of the path after the prefix, split at '/' (the first is the empty one before it). */
  segments: readonly string[]
  /** The same without the base's segment: the resource. */
  resource: readonly string[]
  /** For a path without parameters, worked out once: the path and its resource, as registered and in lower case. */
  fixed: { text: string, lower: string, resource: string, lowerResource: string } | null
  /** The methods it answers (not counting the 405s of the methods it refuses). */
  methods: Set<string>
}

/** `rest` (a path after the prefix) split into its API base ('' or '/api', any case) and the resource after it. */
function baseOf (rest: string): string {
  return rest.length >= 4 && rest.slice(0, 4).toLowerCase() === API && (rest.length === 4 || rest[4] === '/') ? API : ''
}

/**
 * The edit distance (Levenshtein: insert, delete or replace one character) between `a` and `b`,
 * or 3 for anything above 2. Bounded: the common start and end are skipped, and only the band of
 * the table within two of its diagonal is worked out.
 */
export function editsUpTo2 (a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3
  let start = 0
  while (start < a.length && start < b.length && a[start] === b[start]) start++
  let endA = a.length
  let endB = b.length
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--
    endB--
  }
  const m = endA - start
  const n = endB - start
  if (m === 0 || n === 0) return Math.min(3, m + n)
  if (rows[0].length < n + 1) rows = [new Int32Array(n + 1), new Int32Array(n + 1)]
  // One row of the table at a time, in two reused rows; cells outside the band count as 3 (too far).
  let [previous, row] = rows
  for (let j = 0; j <= n; j++) previous[j] = Math.min(j, 3)
  for (let i = 1; i <= m; i++) {
    row.fill(3, 0, n + 1)
    row[0] = Math.min(i, 3)
    let best = row[0] as number
    const char = a[start + i - 1]
    for (let j = Math.max(1, i - 2); j <= Math.min(n, i + 2); j++) {
      const replace = (previous[j - 1] as number) + (char === b[start + j - 1] ? 0 : 1)
      const cell = Math.min(3, replace, (previous[j] as number) + 1, (row[j - 1] as number) + 1)
      row[j] = cell
      if (cell < best) best = cell
    }
    if (best > 2) return 3
    ;[previous, row] = [row, previous]
  }
  return previous[n] as number
}

/** The two rows editsUpTo2 works in, made longer when a longer text comes. */
let rows: [Int32Array, Int32Array] = [new Int32Array(MAX_SUGGESTED_PATH + 8), new Int32Array(MAX_SUGGESTED_PATH + 8)]

/** `segments` joined, each parameter (`:guid`) replaced by the segment at the same place in `sent`; null when `sent` has none there. */
function filled (segments: readonly string[], sent: readonly string[]): string | null {
  const out: string[] = []
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] as string
    if (!segment.startsWith(':')) out.push(segment)
    else {
      const value = sent[i]
      if (value === undefined || value === '') return null
      out.push(value)
    }
  }
  return out.join('/')
}

/** Segments without the base's: `['', 'api', 'heartbeat']` is `['', 'heartbeat']`. */
function withoutBase (segments: readonly string[], base: string): readonly string[] {
  return base === '' ? segments : ['', ...segments.slice(2)]
}

/**
 * The real paths of one service under its `prefix`, and the nearest of them to a path that is not
 * one. Suggested: a path that differs only in case or a trailing slash, or is one or two edits away
 * (case aside), or is a real one under the other base (`/api/docs` for `/docs`, which exists only
 * at the root). Two edits count only for paths long enough (see `suggest`).
 */
export class NearPaths {
  readonly #prefix: string
  readonly #known: Known[] = []
  readonly #seen = new Map<string, Known>()

  constructor (prefix: string) {
    this.#prefix = prefix
  }

  /**
   * Adds the route `url` (as registered: the prefix included) for `methods`, the methods it answers
   * (none for a route that only refuses methods with 405). Wildcard routes and other prefixes are left out.
   */
  add (url: string, methods: readonly string[]): void {
    if (url.includes('*') || !url.startsWith(this.#prefix)) return
    const seen = this.#seen.get(url)
    if (seen !== undefined) {
      for (const method of methods) seen.methods.add(method)
      return
    }
    const rest = url.slice(this.#prefix.length)
    const base = baseOf(rest)
    const segments = rest.split('/')
    const resource = withoutBase(segments, base)
    const text = resource.join('/')
    const fixed = rest.includes('/:') ? null : { text: rest, lower: rest.toLowerCase(), resource: text, lowerResource: text.toLowerCase() }
    const known: Known = { base, segments, resource, fixed, methods: new Set(methods) }
    this.#seen.set(url, known)
    this.#known.push(known)
  }

  /**
   * The real path nearest `path` (the request's URL without its query string, prefix included), as
   * the learner should send it: the prefix, their base when the path exists under it, and their own
   * value for a parameter (their session id as they sent it). null when `path` is a real path
   * itself (only the method was wrong), when nothing is near, or when it is too long to look at.
   * The fewest edits win; among as few, the path under the learner's base, then one that answers
   * `method` (the request's: GET /challenge is nearer GET /challenges than /challenger, which takes
   * only POST), then the first registered.
   * At most two edits, and fewer for a short path: one from 3 characters, two from 6 (else any
   * two-character path would be "near" /).
   */
  suggest (path: string, method: string): string | null {
    if (path.length > MAX_SUGGESTED_PATH || !path.startsWith(this.#prefix)) return null
    const rest = path.slice(this.#prefix.length)
    const base = baseOf(rest)
    const sent = rest.split('/')
    const sentResource = withoutBase(sent, base)
    const lower = rest.toLowerCase()
    const lowerResource = lower.slice(base.length)
    const best = { path: null as string | null, score: Infinity }
    /** Keeps `before` + `candidate` (a real path; `lowered`, in lower case) if it is nearer `against` than the best so far. */
    const consider = (candidate: string | null, lowered: string | null, against: string, before: string, otherBase: number, otherMethod: number): void => {
      // Most are too long or too short to be near: no lower case, no table.
      if (candidate === null || Math.abs(candidate.length - against.length) > 2) return
      const edits = editsUpTo2(lowered ?? candidate.toLowerCase(), against)
      if (edits > Math.min(2, Math.floor(Math.min(candidate.length, against.length) / 3))) return
      const score = edits * 4 + otherBase * 2 + otherMethod
      if (score < best.score) {
        best.score = score
        best.path = before + candidate
      }
    }
    for (const known of this.#known) {
      const fixed = known.fixed
      const whole = fixed === null ? filled(known.segments, sent) : fixed.text
      if (whole === rest) return null
      const otherBase = known.base === base ? 0 : 1
      const otherMethod = known.methods.has(method) ? 0 : 1
      // The path as sent, base and all; then its resource under this path's base (/api/docs: /docs).
      consider(whole, fixed === null ? null : fixed.lower, lower, '', otherBase, otherMethod)
      if (otherBase === 0) continue
      if (fixed === null) consider(filled(known.resource, sentResource), null, lowerResource, known.base, 1, otherMethod)
      else consider(fixed.resource, fixed.lowerResource, lowerResource, known.base, 1, otherMethod)
    }
    return best.path === null ? null : this.#prefix + best.path
  }
}
