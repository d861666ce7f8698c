// The Redis store's Lua scripts, in ./lua: read once, at the first store's start, and defined as
// commands of its connection (ioredis's defineCommand: EVALSHA, and EVAL once should Redis not have
// the script yet). Every change is one script, atomic in Redis and one round trip.
// No write goes past Redis's maxmemory: every script starts with a shebang (Redis 7), so that Redis
// refuses it up front while memory is over the limit (the request is answered 503), unless it only
// reads (flags=no-writes) or only reads and deletes (flags=allow-oom: the sweeps, which free memory).
// Without a shebang Redis checks a script's memory only at its first write, and a script whose first
// write was a delete (a creation's, of a journal that is not there) could then write past the limit.
import { readFileSync } from 'node:fs'
import type { Redis } from 'ioredis'

/** How many activity scores a millisecond has (see <prefix>lru in src/domain/sessions/redis-store.ts). */
export const PER_MS = 1024
/**
 * How much longer than its session a journal may live (see <prefix>j:): a lookup renews the
 * journal's TTL to the idle time plus this once it has fallen below the idle time.
 */
export const JOURNAL_SPARE_MS = 60_000
/** Expired sessions removed by a creation, and by a probe or a board read (see <prefix>lru). */
const SWEEP_ON_CREATE = 2
const SWEEP_ON_READ = 100

/** The constants the scripts share with this module, as Lua: one place for each number. */
const CONSTANTS = `local PER_MS, JOURNAL_SPARE_MS, SWEEP_ON_CREATE, SWEEP_ON_READ = ${PER_MS}, ${JOURNAL_SPARE_MS}, ${SWEEP_ON_CREATE}, ${SWEEP_ON_READ}\n`

/**
 * Each script: the files it is made of, in order (session.lua and count.lua are libraries), how many
 * of its arguments are keys, and its flags: no-writes for one that only reads, allow-oom for one that
 * only reads and deletes, none for one that may add to Redis's memory.
 */
const SCRIPTS = {
  // Named apart from Redis's own commands (GET, SET, …), which ioredis has as methods of the same name.
  lookup: { files: ['session', 'lookup'], keys: 3 },
  update: { files: ['session', 'update'], keys: 3 },
  record: { files: ['session', 'record'], keys: 3 },
  put: { files: ['session', 'put'], keys: 3 },
  setName: { files: ['session', 'set-name'], keys: 3 },
  journal: { files: ['session', 'journal'], keys: 3 },
  // The board's reads and the probe sweep (delete) and read: they run at maxmemory too.
  list: { files: ['session', 'list'], keys: 3, flags: 'allow-oom' },
  counts: { files: ['session', 'counts'], keys: 3, flags: 'allow-oom' },
  probe: { files: ['session', 'probe'], keys: 3 },
  sweep: { files: ['session', 'sweep'], keys: 3, flags: 'allow-oom' },
  progress: { files: ['progress'], keys: 3, flags: 'no-writes' },
  countCreation: { files: ['count', 'count-creation'], keys: 1 },
  peekCount: { files: ['peek-count'], keys: 1, flags: 'no-writes' }
} satisfies Record<string, { files: string[], keys: number, flags?: 'no-writes' | 'allow-oom' }>

/** A session as a lookup gives it: token, note, progress, pinned ('1'), name (null for none). */
export type Found = [string, string, string, string | null, string | null]

// Every script but the counts takes the activity index, the sessions, the unused sessions' index, the idle time and the prefix first,
export type Common = [lru: string, sessions: string, fresh: string, idleMs: number, prefix: string]
// then its deadline, by Redis's clock in ms ('' for none): past it, the script does nothing and fails
// with LATE (see lua/session.lua and ./clock.ts).
export type Head = [...Common, deadline: string]

/** The scripts, as commands of the connection. */
export interface Scripts {
  lookup (...args: [...Head, id: string]): Promise<Found | null>
  update (...args: [...Head, id: string, hasNote: string, note: string, bits: number]): Promise<number>
  record (...args: [...Head, id: string, entry: string, size: number]): Promise<number>
  put (...args: [...Head, id: string, token: string, note: string, progress: number, max: number, pinned: string, onlyNew: string, name: string]): Promise<number>
  setName (...args: [...Head, id: string, name: string]): Promise<Found | null>
  list (...args: [...Head, limit: number, afterScore: string, afterId: string]): Promise<Array<string | number>>
  counts (...args: [...Head, activeMs: number]): Promise<[live: number, active: number, used: number]>
  progress (...args: [...Head, from: number, to: number]): Promise<string[]>
  journal (...args: [...Head, id: string, size: number]): Promise<string[] | null>
  /** Redis's clock, in ms. */
  probe (...args: Head): Promise<number>
  sweep (...args: Head): Promise<number>
  countCreation (key: string, windowMs: number): Promise<[number, number]>
  peekCount (key: string): Promise<[number, number]>
}

/** A script as Redis runs it: its name, how many of its arguments are keys, its text. */
export type Script = [name: string, keys: number, lua: string]

/** The scripts' text, read at the first store's start. */
let sources: Script[] | undefined

function read (file: string): string {
  return readFileSync(new URL(`lua/${file}.lua`, import.meta.url), 'utf8')
}

/** The scripts, read from ./lua once (a missing file throws here, before any connection is made). */
export function loadScripts (): Script[] {
  sources ??= Object.entries(SCRIPTS).map(([name, script]) => {
    const flags = 'flags' in script ? ` flags=${script.flags}` : ''
    return [name, script.keys, `#!lua${flags}\n${CONSTANTS}${script.files.map(read).join('')}`]
  })
  return sources
}

/** Defines `scripts` as commands of `client`, and hands them out typed. */
export function defineScripts (client: Redis, scripts: Script[]): Scripts {
  for (const [name, numberOfKeys, lua] of scripts) client.defineCommand(name, { numberOfKeys, lua })
  return client as unknown as Scripts
}
