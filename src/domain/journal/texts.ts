// The texts a journal's entries keep: the ones the service knows in advance (its routes' paths, the
// usual media types), one shared copy each for every entry; and the client's own, kept short.

/** A path or a Content-Type longer than this is shown cut, with … at the end: both are the client's. */
export const MAX_JOURNAL_TEXT = 100
/** What a text reads once its journal's room has gone to newer ones. */
export const ELLIPSIS = '…'

const known = new Map<string, string>()
/** The known texts with a parameter (`/challenger/:guid`), and their segments. */
const patterns: Array<[string, string[]]> = []

/** Makes `text` a known text (a route's path: with ?hints=true, and with a query the journal had to drop, too). Bounded: past 500, a text is each entry's own. */
export function knownText (text: string): void {
  if (known.has(text) || known.size >= 500) return
  known.set(text, text)
  if (text.includes('/:')) patterns.push([text, text.split('/')])
  if (!text.startsWith('/')) return
  for (const query of ['hints=true', ELLIPSIS]) known.set(`${text}?${query}`, `${text}?${query}`)
}

for (const type of ['application/json', 'application/xml', 'text/xml', 'text/plain', 'text/html',
  'application/x-www-form-urlencoded', 'multipart/form-data', 'application/octet-stream']) knownText(type)

export function isKnown (text: string): boolean {
  return known.has(text)
}

/** The shared copy of `text` when it is a known one, else `text`. */
export function sharedText (text: string): string {
  return known.get(text) ?? text
}

/**
 * What an entry keeps of `text`: the shared copy when it is known, else a string of its own (never
 * a slice of a whole request), MAX_JOURNAL_TEXT + 1 characters at most and cut only when shown:
 * a "…" in it would make V8 keep it in two bytes a character.
 */
export function keptText (text: string, length = MAX_JOURNAL_TEXT + 1): string {
  return known.get(text) ?? JSON.parse(JSON.stringify(text.slice(0, length))) as string
}

/** The longest target an entry keeps: its path and its query, each cut to one character more than shown, and the "?". */
export const MAX_TARGET = 2 * (MAX_JOURNAL_TEXT + 1) + 1

/**
 * What an entry keeps of its path and query: one text, "path?query" (or the path alone), shared when
 * known (a route's path, with ?hints=true), else the journal's own, each part cut as keptText cuts it.
 * `route` is the path with the session's id as the route names it.
 */
export function targetText (route: string, path: string, query: string | undefined): string {
  const shared = isKnown(route)
  if (query === undefined) return shared ? sharedText(route) : keptText(path)
  return keptText(`${shared ? route : path.slice(0, MAX_JOURNAL_TEXT + 1)}?${query.slice(0, MAX_JOURNAL_TEXT + 1)}`, MAX_TARGET)
}

/** A target as its entry shows it: its path and its query (undefined when none), each cut to MAX_JOURNAL_TEXT. */
export function targetParts (target: string): [path: string, query: string | undefined] {
  const mark = target.indexOf('?')
  return mark === -1 ? [journalText(target), undefined] : [journalText(target.slice(0, mark)), journalText(target.slice(mark + 1))]
}

/** What an older entry's target becomes once the journal's room has gone to newer texts: its route with its query "…" when the route is known, else "…". */
export function droppedTarget (target: string): string {
  const mark = target.indexOf('?')
  return mark === -1 ? ELLIPSIS : known.get(`${target.slice(0, mark)}?${ELLIPSIS}`) ?? ELLIPSIS
}

/** `text` as the journal shows it: cut to MAX_JOURNAL_TEXT characters, with "…", when longer. */
export function journalText (text: string): string {
  return text.length > MAX_JOURNAL_TEXT ? `${text.slice(0, MAX_JOURNAL_TEXT - 1)}${ELLIPSIS}` : text
}

/** A 404's suggestion as an entry keeps it: a known text, or the route's path as registered when it fills a parameter. */
export function routeOf (suggestion: string | null): string | null {
  if (suggestion === null) return null
  const segments = suggestion.split('/')
  const route = patterns.find(([, pattern]) => pattern.length === segments.length && pattern.every((s, i) => s.startsWith(':') || s === segments[i]))
  return known.get(suggestion) ?? route?.[0] ?? null
}
