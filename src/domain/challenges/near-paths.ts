// "Did you mean …?" for a 404: the real path nearest the one sent (plugins/errors.ts feeds in the
// routes). The work is bounded: long paths get no suggestion, and a comparison stops past two edits.

export const MAX_SUGGESTED_PATH = 200
import { API_BASE as API } from '../http/api-base.js'

/** One real path: its API base ('' or '/api'), its segments (`:name` for a parameter), whole and after the base. */
interface Known {
  base: string
  segments: readonly string[]
  resource: readonly string[]
  fixed: { text: string, lower: string, resource: string, lowerResource: string } | null
  methods: Set<string>
}

function baseOf (rest: string): string {
  return rest.length >= 4 && rest.slice(0, 4).toLowerCase() === API && (rest.length === 4 || rest[4] === '/') ? API : ''
}

/** The Levenshtein distance between `a` and `b`, or 3 for anything above 2. */
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
  // Only the band within two of the diagonal; cells outside it count as 3 (too far).
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

let rows: [Int32Array, Int32Array] = [new Int32Array(MAX_SUGGESTED_PATH + 8), new Int32Array(MAX_SUGGESTED_PATH + 8)]

/** `segments` joined, each parameter filled from `sent`; null when `sent` has none there. */
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

function withoutBase (segments: readonly string[], base: string): readonly string[] {
  return base === '' ? segments : ['', ...segments.slice(2)]
}

/** The real paths of one service under its `prefix`, and the nearest of them to a path that is not one. */
export class NearPaths {
  readonly #prefix: string
  readonly #known: Known[] = []
  readonly #seen = new Map<string, Known>()

  constructor (prefix: string) {
    this.#prefix = prefix
  }

  /** Adds the route `url` (prefix included) and the methods it answers; wildcards and other prefixes are left out. */
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

  /** The real path nearest `path` (no query string), with the learner's base and values; null when it is real, too
   * long, or nothing is near. Fewest edits (one from 3 characters, two from 6) win, then the same base, then `method`. */
  suggest (path: string, method: string): string | null {
    if (path.length > MAX_SUGGESTED_PATH || !path.startsWith(this.#prefix)) return null
    const rest = path.slice(this.#prefix.length)
    const base = baseOf(rest)
    const sent = rest.split('/')
    const sentResource = withoutBase(sent, base)
    const lower = rest.toLowerCase()
    const lowerResource = lower.slice(base.length)
    const best = { path: null as string | null, score: Infinity }
    const consider = (candidate: string | null, lowered: string | null, against: string, before: string, otherBase: number, otherMethod: number): void => {
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
