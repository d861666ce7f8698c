// The API coverage of a suite: its run against the correct service, set against the service's own
// OpenAPI document (GET /docs/json, asked of grade's service by inject, so not one of the suite's
// requests): each documented path and method with the statuses it was answered, the documented
// statuses never seen, the operations never sent, and the requests to anything the document lacks.
import type { FastifyInstance } from 'fastify'
import type { SentRequest } from './requests.js'

/** A documented operation: a path as the document writes it (/challenger/{guid}), a method, its statuses. */
export interface Operation {
  readonly path: string
  readonly method: string
  readonly statuses: readonly number[]
}

export interface CoverageRow {
  readonly path: string
  readonly method: string
  /** Status → how many times it was answered. */
  readonly seen: ReadonlyMap<number, number>
  /** The statuses the document gives it (none for an operation the document lacks). */
  readonly statuses: readonly number[]
  /** The documented statuses never answered. */
  readonly unseen: readonly number[]
  readonly documented: boolean
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'])
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null

/** The operations of an OpenAPI document (anything else in it is passed over). */
export function operationsOf (document: unknown): Operation[] {
  const paths = isObject(document) && isObject(document.paths) ? document.paths : {}
  return Object.entries(paths).flatMap(([path, methods]) => Object.entries(isObject(methods) ? methods : {})
    .filter(([method]) => METHODS.has(method))
    .map(([method, operation]) => ({
      path,
      method: method.toUpperCase(),
      statuses: Object.keys(isObject(operation) && isObject(operation.responses) ? operation.responses : {}).filter(code => /^\d{3}$/.test(code)).map(Number).sort((a, b) => a - b)
    })))
}

/** The service's documented operations; none when it has no document to give. */
export async function contractOf (app: FastifyInstance): Promise<Operation[]> {
  const answer = await app.inject({ method: 'GET', url: '/docs/json' })
  return answer.statusCode === 200 ? operationsOf(answer.json()) : []
}

/** A request's path as the document writes it: the route's, with {params} and without the /api base; else the path sent. */
function documentedPath (request: SentRequest, paths: ReadonlySet<string>): string {
  if (request.route === null) return `${request.path} (no such route)`
  const path = request.route.replace(/:([^/]+)/g, '{$1}')
  const withoutBase = path.replace(/^\/api(?=\/)/, '')
  return paths.has(withoutBase) ? withoutBase : path
}

/** The coverage table: each documented operation in the document's order, then what the suite sent beyond it. */
export function coverageRows (requests: readonly SentRequest[], contract: readonly Operation[]): CoverageRow[] {
  const paths = new Set(contract.map(op => op.path))
  const seen = new Map<string, Map<number, number>>()
  const extra: Array<[string, string]> = []
  for (const r of requests) {
    const path = documentedPath(r, paths)
    const key = `${r.method} ${path}`
    let statuses = seen.get(key)
    if (statuses === undefined) {
      statuses = new Map()
      seen.set(key, statuses)
      if (!contract.some(op => op.path === path && op.method === r.method)) extra.push([path, r.method])
    }
    statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1)
  }
  const none = new Map<number, number>()
  return [
    ...contract.map(op => {
      const answered = seen.get(`${op.method} ${op.path}`) ?? none
      return { path: op.path, method: op.method, seen: answered, statuses: op.statuses, unseen: op.statuses.filter(status => !answered.has(status)), documented: true }
    }),
    ...extra.map(([path, method]) => ({ path, method, seen: seen.get(`${method} ${path}`) as Map<number, number>, statuses: [], unseen: [], documented: false }))
  ]
}

/** "200 ×3, 401": the statuses answered, or "never sent". */
export function statusesText (statuses: ReadonlyMap<number, number>): string {
  if (statuses.size === 0) return 'never sent'
  return [...statuses].sort(([a], [b]) => a - b).map(([status, n]) => n === 1 ? String(status) : `${status} ×${n}`).join(', ')
}

/** "3 of 8 documented operations sent; 6 of 40 of their documented statuses answered". */
export function coverageSummary (rows: readonly CoverageRow[]): string {
  const documented = rows.filter(row => row.documented)
  const sent = documented.filter(row => row.seen.size > 0).length
  const statuses = documented.reduce((sum, row) => sum + row.statuses.length, 0)
  const unseen = documented.reduce((sum, row) => sum + row.unseen.length, 0)
  return `${sent} of ${documented.length} documented operations sent; ${statuses - unseen} of their ${statuses} documented statuses answered`
}
