// The class board's page sizes and the sessions as CSV (RFC 4180), for routes/admin.ts.
import { challenges, isPassed, paddedId, passedIds } from '../challenges/catalogue.js'
import type { SessionSummary } from '../sessions/store.js'

/** Sessions per page of GET /admin/sessions: by default, and at most. */
export const DEFAULT_PAGE = 100
export const MAX_PAGE = 1000
export const ACTIVE_WINDOW_MS = 10 * 60 * 1000

// A formula's first character (OWASP, CSV injection) where a cell may begin: at the field's start or
// after , or ; (some locales split on ;, quotes or not), past spaces and quotes a lenient reader drops.
const FORMULA_START = /(^|[,;])([\p{White_Space}"]*?)(?=[=+\-@\t\r])/gu

/** One CSV field, quoted, quotes doubled, and a ' before a formula's character, as OWASP advises. */
export function csvField (text: string): string {
  return `"${text.replace(FORMULA_START, "$1$2'").replaceAll('"', '""')}"`
}

/** A time kept in whole seconds, in ISO 8601 without a fraction: 2026-11-26T17:11:32Z. */
export function isoSeconds (ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')
}

/** The board's sessions; a bug hunt in two columns of numbers (a spreadsheet reads "1/3" as a date), empty for no hunt. */
export function sessionsCsv (sessions: readonly SessionSummary[]): string {
  const head = ['guid', 'name', 'createdAt', 'lastSeen', 'passed', 'huntFound', 'huntHidden', ...challenges.map(c => `challenge ${paddedId(c.id)}`)]
  const rows = sessions.map(s => [
    s.guid, s.name ?? '', isoSeconds(s.createdAt), new Date(s.lastSeen).toISOString(), String(passedIds(s.progress).length),
    s.hunt === undefined ? '' : String(s.hunt.found), s.hunt === undefined ? '' : String(s.hunt.hidden),
    ...challenges.map(c => String(isPassed(s.progress, c)))
  ])
  return [head, ...rows].map(cells => cells.map(csvField).join(',') + '\r\n').join('')
}

/** A page size from the query: a whole number from 1 to MAX_PAGE, or the reason it is not. */
export function pageSize (raw: string | undefined): number | string {
  if (raw === undefined) return DEFAULT_PAGE
  if (!/^\d{1,7}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_PAGE) return `limit must be a whole number from 1 to ${MAX_PAGE}, got ${JSON.stringify(raw)}`
  return Number(raw)
}
