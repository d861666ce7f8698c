// Grading runs in Redis, beside the sessions (../redis-store.ts), so that every instance of a class
// reads them and a restart keeps them. Keys, under the store's prefix:
//   <prefix>grade:<id>        hash: o its owner, c its start, e its end (ms since 1970), b its bases
//                             ('id=defect,…', '' for the correct one), r:<base> each exit code; it
//                             expires at its end
//   <prefix>grades            sorted set: every live run's id, by its end (the total's limit)
//   <prefix>grades:o:<owner>  sorted set: the owner's runs by their end (the session's limit, the board)
// Each change is one Lua script (./lua/grade-*.lua), so that the limits hold across instances.
import { readFileSync } from 'node:fs'
import type { Redis } from 'ioredis'
import { newRunId, type GradeBase, type GradeRun, type GradeRuns, type ReportOutcome, type RunLimits, type RunRefusal } from '../../grades/runs.js'

interface GradeScripts {
  gradeStart (all: string, own: string, key: string, runMs: number, perSession: number, total: number, id: string, owner: string, bases: string): Promise<[string, string | number, string?]>
  gradeReport (key: string, base: string, exitCode: number): Promise<ReportOutcome>
  gradeLatest (prefix: string, ...owners: string[]): Promise<Array<[string, string[]] | []>>
  gradeLive (all: string): Promise<number>
}

const SCRIPTS = [['gradeStart', 'grade-start', 3, ''], ['gradeReport', 'grade-report', 1, ''], ['gradeLatest', 'grade-latest', 0, ' flags=no-writes'], ['gradeLive', 'grade-live', 1, ' flags=no-writes']] as const

/** Runs a command through the store's availability: a write (waiting for replicas), or a read. */
export interface Through {
  write: <T>(command: () => Promise<T>) => Promise<T>
  read: <T>(command: () => Promise<T>) => Promise<T>
}

const basesText = (bases: readonly GradeBase[]): string => bases.map(base => `${base.id}=${base.defect ?? ''}`).join(',')

function runOf (id: string, fields: Record<string, string>): GradeRun | undefined {
  if (fields.b === undefined) return undefined
  const results: Record<string, number> = {}
  for (const [name, value] of Object.entries(fields)) if (name.startsWith('r:')) results[name.slice(2)] = Number(value)
  const bases = fields.b.split(',').map(pair => {
    const [base, defect] = pair.split('=') as [string, string]
    return { id: base, defect: defect === '' ? null : defect }
  })
  return { id, owner: fields.o as string, createdAt: Number(fields.c), expiresAt: Number(fields.e), bases, results }
}

export class RedisGradeRuns implements GradeRuns {
  readonly #scripts: GradeScripts
  readonly #prefix: string
  readonly #through: Through
  readonly #client: Redis

  constructor (client: Redis, prefix: string, through: Through) {
    for (const [name, file, keys, flags] of SCRIPTS) {
      client.defineCommand(name, { numberOfKeys: keys, lua: `#!lua${flags}\n${readFileSync(new URL(`lua/${file}.lua`, import.meta.url), 'utf8')}` })
    }
    this.#client = client
    this.#scripts = client as unknown as GradeScripts
    this.#prefix = prefix
    this.#through = through
  }

  #key (id: string): string {
    return `${this.#prefix}grade:${id}`
  }

  async start (owner: string, bases: readonly GradeBase[], limits: RunLimits): Promise<GradeRun | RunRefusal> {
    const id = newRunId()
    const text = basesText(bases)
    const [outcome, first, second] = await this.#through.write(() => this.#scripts.gradeStart(`${this.#prefix}grades`, `${this.#prefix}grades:o:${owner}`, this.#key(id),
      limits.runMs, limits.perSession, limits.total, id, owner, text))
    if (outcome !== 'started') return { refused: outcome as RunRefusal['refused'], retryAfterSeconds: Number(first) }
    return { id, owner, createdAt: Number(first), expiresAt: Number(second), bases: bases.map(base => ({ ...base })), results: {} }
  }

  async get (id: string): Promise<GradeRun | undefined> {
    return runOf(id, await this.#through.read(() => this.#client.hgetall(this.#key(id))))
  }

  async report (id: string, base: string, exitCode: number): Promise<ReportOutcome> {
    return await this.#through.write(() => this.#scripts.gradeReport(this.#key(id), base, exitCode))
  }

  async latest (owners: readonly string[]): Promise<Map<string, GradeRun>> {
    const found = new Map<string, GradeRun>()
    if (owners.length === 0) return found
    const rows = await this.#through.read(() => this.#scripts.gradeLatest(this.#prefix, ...owners))
    rows.forEach((row, i) => {
      const fields: Record<string, string> = {}
      const list = row[1] ?? []
      for (let j = 0; j < list.length; j += 2) fields[list[j] as string] = list[j + 1] as string
      // No row: no live run (and a run that ends as it is read has no fields).
      const run = runOf(row[0] ?? '', fields)
      if (run !== undefined) found.set(owners[i] as string, run)
    })
    return found
  }

  async live (): Promise<number> {
    return await this.#through.read(() => this.#scripts.gradeLive(`${this.#prefix}grades`))
  }
}
