// Waiting for something another process does (Redis, nginx, a server), by polling.
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'

/**
 * How long `until` waits by default. A wait is not a claim of speed: on a loaded machine (CI runs
 * three Node versions beside other work) a Redis that answers in a millisecond here took seconds.
 * A test that claims a speed says so in an assertion of its own, with its own bound.
 */
export const WAIT_MS = 30_000

/**
 * Polls `check` every `everyMs` until it holds (a check that throws has not held) and returns
 * `performance.now()` at that moment; throws, naming `what`, after `limitMs`.
 */
export async function until (what: string, check: () => boolean | Promise<boolean>, limitMs = WAIT_MS, everyMs = 20): Promise<number> {
  const start = performance.now()
  for (;;) {
    if (await Promise.resolve().then(check).catch(() => false)) return performance.now()
    if (performance.now() - start > limitMs) throw new Error(`${what}: not within ${limitMs} ms`)
    await sleep(everyMs)
  }
}
