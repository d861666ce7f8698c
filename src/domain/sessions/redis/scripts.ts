// The Redis store's Lua scripts (./lua), defined as commands of its connection: each change is one
// atomic script. Each starts with a shebang so that Redis refuses it up front past maxmemory (503),
// unless its flags say it only reads or deletes; without one, Redis checks only at the first write.
import { readFileSync } from 'node:fs'
import type { Redis } from 'ioredis'
import { EXPIRED_KEPT } from '../store.js'
import { AT_WORK_PASSES, TOKEN_BITS } from '../worth.js'

/** Activity scores per millisecond (see <prefix>lru in ../redis-store.ts). */
export const PER_MS = 1024
/** How much longer than its session a journal may live (see <prefix>j:). */
export const JOURNAL_SPARE_MS = 60_000
/** Expired sessions removed by a creation, and by a probe or a board read (see <prefix>lru). */
const SWEEP_ON_CREATE = 2
const SWEEP_ON_READ = 100

const CONSTANTS = `local PER_MS, JOURNAL_SPARE_MS, SWEEP_ON_CREATE, SWEEP_ON_READ, EXPIRED_KEPT = ${PER_MS}, ${JOURNAL_SPARE_MS}, ${SWEEP_ON_CREATE}, ${SWEEP_ON_READ}, ${EXPIRED_KEPT}\n` +
  `local TOKEN_BITS, AT_WORK_PASSES = ${TOKEN_BITS}, ${AT_WORK_PASSES}\n`

/** Each script: its files in order (session.lua and count.lua are libraries), its number of keys, its flags. */
const SCRIPTS = {
  // Named apart from Redis's own commands (GET, SET, …), which ioredis has as methods of the same name.
  lookup: { files: ['session', 'touch', 'lookup'], keys: 3 },
  update: { files: ['session', 'change', 'update'], keys: 3 },
  record: { files: ['session', 'change', 'keep', 'record'], keys: 3 },
  write: { files: ['session', 'touch', 'change', 'keep', 'write'], keys: 3 },
  put: { files: ['session', 'put'], keys: 3 },
  setName: { files: ['session', 'set-name'], keys: 3 },
  journal: { files: ['session', 'journal'], keys: 3 },
  // These only read and delete: they run at maxmemory too.
  list: { files: ['session', 'list'], keys: 3, flags: 'allow-oom' },
  counts: { files: ['session', 'counts'], keys: 3, flags: 'allow-oom' },
  probe: { files: ['session', 'probe'], keys: 3 },
  sweep: { files: ['session', 'sweep'], keys: 3, flags: 'allow-oom' },
  progress: { files: ['progress'], keys: 3, flags: 'no-writes' },
  countCreation: { files: ['count', 'count-creation'], keys: 1 },
  peekCount: { files: ['peek-count'], keys: 1, flags: 'no-writes' }
} satisfies Record<string, { files: string[], keys: number, flags?: 'no-writes' | 'allow-oom' }>

/** A session as a lookup gives it: token, note, progress, pinned ('1'), name, hunt and graded defect (null for none). */
export type Found = [string, string, string, string | null, string | null, string | null, (string | null)?]

// The first arguments of every script but the counts; then its deadline by Redis's clock ('' for none).
export type Common = [lru: string, sessions: string, fresh: string, idleMs: number, prefix: string]
export type Head = [...Common, deadline: string]

/** The scripts, as commands of the connection. */
export interface Scripts {
  lookup (...args: [...Head, id: string]): Promise<Found | null>
  update (...args: [...Head, id: string, hasNote: string, note: string, bits: number, found: string]): Promise<number>
  record (...args: [...Head, id: string, entry: string, size: number, hasChange?: string, hasNote?: string, note?: string, bits?: number]): Promise<number>
  write (...args: [...Head, id: string, digest: string, size: number, head: string, tail: string, asked: number, hasNote: string, note: string, route: number, misses: string]): Promise<null | [0, Found] | [1, number]>
  put (...args: [...Head, id: string, token: string, note: string, progress: number, max: number, pinned: string, onlyNew: string, name: string, hunt: string, graded: string]): Promise<number>
  setName (...args: [...Head, id: string, name: string]): Promise<Found | null>
  list (...args: [...Head, limit: number, afterScore: string, afterId: string]): Promise<Array<string | number>>
  counts (...args: [...Head, activeMs: number]): Promise<[live: number, active: number, used: number]>
  progress (...args: [...Head, from: number, to: number]): Promise<string[]>
  journal (...args: [...Head, id: string, size: number]): Promise<string[] | null>
  probe (...args: Head): Promise<number>
  sweep (...args: Head): Promise<number>
  countCreation (key: string, windowMs: number): Promise<[number, number]>
  peekCount (key: string): Promise<[number, number]>
}

export type Script = [name: string, keys: number, lua: string]

let sources: Script[] | undefined

function read (file: string): string {
  return readFileSync(new URL(`lua/${file}.lua`, import.meta.url), 'utf8')
}

/** The scripts, read from ./lua once (a missing file throws before any connection is made). */
export function loadScripts (): Script[] {
  sources ??= Object.entries(SCRIPTS).map(([name, script]) => {
    const flags = 'flags' in script ? ` flags=${script.flags}` : ''
    return [name, script.keys, `#!lua${flags}\n${CONSTANTS}${script.files.map(read).join('')}`]
  })
  return sources
}

/** Defines `scripts` as commands of `client` (EVALSHA, EVAL when Redis lacks one). */
export function defineScripts (client: Redis, scripts: Script[]): Scripts {
  for (const [name, numberOfKeys, lua] of scripts) client.defineCommand(name, { numberOfKeys, lua })
  return client as unknown as Scripts
}
