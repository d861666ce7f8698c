// The challenge catalogue: challenge-list.ts checked, and the lookups over it (bits, status maps, the reference's names).
import { API_BASE, GRADE_BASE } from '../http/api-base.js'
import { CatalogueError, UnknownTriggerError } from '../http/errors.js'
import { challenges, SOLUTIONS_BASE, type Challenge, type NearMiss, type RequestFacts, type SeenRequest, type Trigger } from './challenge-list.js'
import { MISSPELT_SESSION_HEADER } from './messages.js'

export { challenges, SOLUTIONS_BASE, type Challenge, type RequestFacts, type SeenRequest, type Trigger }

/** Every other name of the reference's CHALLENGE enum since 2020: a restore accepts and ignores them. */
export const OTHER_REFERENCE_NAMES: readonly string[] = Object.freeze([
  'DELETE_ALL_TODOS',
  'DELETE_A_TODO',
  'GET_ACCEPT_ANY_DEFAULT_JSON',
  'GET_ACCEPT_JSON',
  'GET_ACCEPT_JSON_Q_PREFERRED',
  'GET_ACCEPT_Q_REJECTS_ALL_406',
  'GET_ACCEPT_STRUCTURED_XML_WILDCARD',
  'GET_ACCEPT_TEXT_XML',
  'GET_ACCEPT_VENDOR_XML',
  'GET_ACCEPT_XML',
  'GET_ACCEPT_XML_PREFERRED',
  'GET_ACCEPT_XML_Q_PREFERRED',
  'GET_HEAD_TODOS',
  'GET_JSON_BY_DEFAULT_NO_ACCEPT',
  'GET_RESTORABLE_TODOS',
  'GET_RESTORE_EXISTING_CHALLENGER',
  'GET_TODO',
  'GET_TODOS',
  'GET_TODOS_EXPORT_CSV_CONTENT_DISPOSITION',
  'GET_TODOS_EXPORT_HTML_CONTENT_DISPOSITION',
  'GET_TODOS_EXPORT_TSV_CONTENT_DISPOSITION',
  'GET_TODOS_FILTERED',
  'GET_TODOS_FILTERED_AND_SORTED',
  'GET_TODOS_FILTERED_DESCRIPTION_REGEX',
  'GET_TODOS_FILTERED_DESCRIPTION_WILDCARD',
  'GET_TODOS_FILTERED_ID_GREATER_THAN',
  'GET_TODOS_FILTERED_ID_LESS_THAN',
  'GET_TODOS_FILTERED_ID_SINGLE_RESULT',
  'GET_TODOS_NOT_PLURAL_404',
  'GET_TODOS_PAGINATED_FILTERED',
  'GET_TODOS_PAGINATED_LIMIT',
  'GET_TODOS_PAGINATED_LIMIT_OFFSET',
  'GET_TODOS_PAGINATED_LIMIT_TOO_HIGH',
  'GET_TODOS_PAGINATED_SORTED',
  'GET_TODOS_SORTED_ASCENDING',
  'GET_TODOS_SORTED_DESCENDING',
  'GET_TODOS_SORTED_MULTIPLE_FIELDS',
  'GET_TODO_404',
  'GET_TODO_ACCEPT_TEXT_CALENDAR',
  'GET_UNSUPPORTED_ACCEPT_406',
  'GET_UNSUPPORTED_STRUCTURED_JSON_ACCEPT_406',
  'OPTIONS_TODOS',
  'PATCH_TODOS_JSON_PATCH_200',
  'PATCH_TODOS_MERGE_PATCH_200',
  'PATCH_TODOS_PARTIAL_200',
  'POST_ALL_TODOS',
  'POST_CREATE_JSON',
  'POST_CREATE_JSON_ACCEPT_XML',
  'POST_CREATE_VENDOR_XML',
  'POST_CREATE_XML',
  'POST_CREATE_XML_ACCEPT_JSON',
  'POST_MAX_OUT_TITLE_DESCRIPTION_LENGTH',
  'POST_RESTORE_EXISTING_CHALLENGER',
  'POST_TODOS',
  'POST_TODOS_404',
  'POST_TODOS_415',
  'POST_TODOS_BAD_DONE_STATUS',
  'POST_TODOS_INVALID_EXTRA_FIELD',
  'POST_TODOS_TOO_LONG_DESCRIPTION_LENGTH',
  'POST_TODOS_TOO_LONG_PAYLOAD_SIZE',
  'POST_TODOS_TOO_LONG_TITLE_LENGTH',
  'POST_UPDATE_TODO',
  'PUT_RESTORABLE_TODOS',
  'PUT_TODOS_400',
  'PUT_TODOS_400_NO_AMEND_ID',
  'PUT_TODOS_422',
  'PUT_TODOS_422_NO_AMEND_ID',
  'PUT_TODOS_BODY_ID_200',
  'PUT_TODOS_FULL_200',
  'PUT_TODOS_ID_NOT_FOUND_404',
  'PUT_TODOS_ID_NO_BODY_ID_200',
  'PUT_TODOS_MISSING_TITLE_400',
  'PUT_TODOS_MISSING_TITLE_422',
  'PUT_TODOS_NO_ID_422',
  'PUT_TODOS_PARTIAL_200',
  'QUERY_TODOS_FILTERED',
  'QUERY_TODOS_JSONPATH_FILTERED',
  'QUERY_TODOS_STRUCTURED_JSON_FILTERED'
])

/** The catalogue, checked (ids in order; ids, names, triggers and bits once; bits 0 to 30): a mistake fails at start-up. */
export function checkedCatalogue (list: readonly Challenge[]): readonly Challenge[] {
  const once = (what: string, values: ReadonlyArray<string | number>): void => {
    const twice = values.filter((value, at) => values.indexOf(value) !== at)
    if (twice.length > 0) throw new CatalogueError(`${what} ${twice.join(', ')} used twice`)
  }
  once('id', list.map(c => c.id))
  const early = list.find((c, at) => at > 0 && c.id < (list[at - 1] as Challenge).id)
  if (early !== undefined) throw new CatalogueError(`challenge ${early.id} comes after a higher id; keep the list in id order`)
  once('reference name', list.map(c => c.referenceName))
  once('trigger', list.map(c => c.trigger))
  once('bit', list.map(c => c.bit))
  const wrong = list.filter(c => !Number.isInteger(c.bit) || c.bit < 0 || c.bit > 30)
  if (wrong.length > 0) throw new CatalogueError(`challenge ${wrong[0]?.id} has bit ${wrong[0]?.bit}; bits go from 0 to 30`)
  const unhinted = list.filter(c => c.nearMisses.length === 0)
  if (unhinted.length > 0) throw new CatalogueError(`challenge ${unhinted[0]?.id} has no near miss; each has at least one`)
  const misses = list.reduce((sum, c) => sum + c.nearMisses.length, 0)
  if (misses > MAX_NEAR_MISSES) throw new CatalogueError(`${misses} near misses; the journal keeps at most ${MAX_NEAR_MISSES}`)
  return list
}

export function isPassed (progress: number, challenge: Challenge): boolean {
  return (progress & (1 << challenge.bit)) !== 0
}

/** The ids of the challenges passed in `progress`, in id order. */
export function passedIds (progress: number): number[] {
  return challenges.filter(c => isPassed(progress, c)).map(c => c.id)
}

/** The id as the reference writes it in a status map: two digits, `01`. */
export function paddedId (id: number): string {
  return String(id).padStart(2, '0')
}

/** One challenge as GET /challenges shows it: the reference's keys, in its order. */
export interface ChallengeItem {
  id: number
  name: string
  description: string
  status: boolean
}

/** One challenge with how to pass it (the challenges page, GET /challenges?hints=true). */
export interface ChallengeRow extends ChallengeItem {
  hint: string
}

/** The most near misses a catalogue may have: their places are 0 to 125, below the hints of its own. */
export const MAX_NEAR_MISSES = 126

// A journal entry's hint is a code: a near miss's place, plus UNDER_API when the request came under
// /api (its sentence then names /api/… paths), or MISSPELT_SESSION_HINT; -1 for none.
const UNDER_API = 128
/** The hint of a request that named its session in a misspelt X-CHALLENGER (recorded by the journal plugin). */
export const MISSPELT_SESSION_HINT = 127

/** `hint`, a challenge's request line and headers, with its path under `base` (`GET /api/challenges`). */
export function hintUnder (hint: string, base: string): string {
  return base === '' ? hint : hint.replace(' /', () => ` ${base}/`)
}

/** The resource of a trigger: `/secret/note` for 'POST /secret/note no-token'. */
export function resourceOf (trigger: Trigger): string {
  return trigger.split(' ')[1] as string
}

/** The API base of a route's URL, after `prefix`: '/api', a grading run's base, or '' (the root). */
export function routeBase (url: string, prefix: string): string {
  const resource = url.slice(prefix.length)
  if (resource.startsWith(`${GRADE_BASE}/`)) return GRADE_BASE
  return resource === API_BASE || resource.startsWith(`${API_BASE}/`) ? API_BASE : ''
}

/** The resource a route serves, as triggers name it: its URL without `prefix` and the `/api` base. */
export function routeResource (url: string, prefix: string): string {
  return url.slice(prefix.length + routeBase(url, prefix).length)
}

/** The lookups over one list of challenges (the service's is below; a test can make its own). */
export function createCatalogue (list: readonly Challenge[]) {
  checkedCatalogue(list)
  const maskByTrigger = new Map<string, number>(list.map(c => [c.trigger, 1 << c.bit]))
  // Every near miss in one list (a journal entry keeps its place in it).
  const nearMisses: Array<{ challenge: Challenge, rule: NearMiss }> = list.flatMap(challenge => challenge.nearMisses.map(rule => ({ challenge, rule })))
  const missesOn = new Map<string, Array<{ at: number, challenge: Challenge, rule: NearMiss }>>()
  // The progress bits of each resource's challenges: once all are passed, nothing is near.
  const maskOn = new Map<string, number>()
  nearMisses.forEach(({ challenge, rule }, at) => {
    const resource = resourceOf(challenge.trigger)
    missesOn.set(resource, [...missesOn.get(resource) ?? [], { at, challenge, rule }])
    maskOn.set(resource, (maskOn.get(resource) ?? 0) | 1 << challenge.bit)
  })
  return {
    challenges: list,
    /** The progress mask of the challenge that `trigger` passes; an unknown trigger fails the route's registration. */
    bitFor (trigger: Trigger): number {
      const mask = maskByTrigger.get(trigger)
      if (mask === undefined) throw new UnknownTriggerError(trigger)
      return mask
    },
    /** The challenges whose trigger no route asked a bit for (`emitted`): nobody could pass them. */
    unreachable (emitted: ReadonlySet<string>): Challenge[] {
      return list.filter(c => !emitted.has(c.trigger))
    },
    /** With each challenge's hint; its path under `base` (a prefix and /api) when the learner works there. */
    rows (progress: number, base = ''): ChallengeRow[] {
      return list.map(c => ({ id: c.id, name: c.name, description: c.description, hint: hintUnder(c.hint, base), status: isPassed(progress, c) }))
    },
    items (progress: number): ChallengeItem[] {
      return list.map(c => ({ id: c.id, name: c.name, description: c.description, status: isPassed(progress, c) }))
    },
    /** The progress bits of the challenges on `resource`: once a session has them all, nothing there is near. */
    nearMissMask (resource: string): number {
      return maskOn.get(resource) ?? 0
    },
    /** The hint's code of the first near miss of a challenge not yet passed that recognises the request; -1 for none. */
    nearMiss (resource: string, request: RequestFacts, progress: number): number {
      const misses = missesOn.get(resource)
      if (misses === undefined) return -1
      const mask = maskOn.get(resource) as number
      if ((progress & mask) === mask) return -1
      for (const { at, challenge, rule } of misses) {
        if (!isPassed(progress, challenge) && rule.when(request)) return request.base === API_BASE ? at + UNDER_API : at
      }
      return -1
    },
    /**
     * The near misses on `resource` that recognise the request, in order, each as [its challenge's bit, its
     * hint's code]: for any progress, nearMiss's hint is the first whose challenge is not passed (a store
     * across the network works it out beside the session, src/domain/sessions/redis/lua/write.lua).
     */
    nearMissesOf (resource: string, request: RequestFacts): Array<[number, number]> {
      return (missesOn.get(resource) ?? []).filter(({ rule }) => rule.when(request))
        .map(({ at, challenge }) => [1 << challenge.bit, request.base === API_BASE ? at + UNDER_API : at])
    },
    /** The sentence of hint `code` for what the journal kept of the request; null for -1. */
    nearMissSays (code: number, request: SeenRequest): string | null {
      if (code < 0) return null
      const at = code % UNDER_API
      if (at === MISSPELT_SESSION_HINT) return MISSPELT_SESSION_HEADER
      return nearMisses[at]?.rule.says({ ...request, base: code >= UNDER_API ? API_BASE : '' }) ?? null
    },
    /** Progress as the reference's status map: every catalogue id, passed or not. */
    statusMap (progress: number): Record<string, boolean> {
      const map: Record<string, boolean> = {}
      for (const c of list) map[paddedId(c.id)] = isPassed(progress, c)
      return map
    },
    /** The progress a status map stands for, keyed by id (`01`) or by the reference's name. */
    progressFrom (map: Record<string, boolean | undefined>): number {
      let progress = 0
      for (const c of list) {
        if (map[paddedId(c.id)] === true || map[c.referenceName] === true) progress |= 1 << c.bit
      }
      return progress
    }
  }
}

export const { bitFor, unreachable: unreachableChallenges, rows: challengeRows, items: challengeItems, statusMap, progressFrom, nearMiss, nearMissesOf, nearMissMask, nearMissSays } = createCatalogue(challenges)
