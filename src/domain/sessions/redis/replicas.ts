// The replicas each write waits for (REDIS_WAIT_REPLICAS): every replica the primary has, and never fewer than
// asked for. Sentinel promotes the replica it prefers by an offset up to 30 s old, so a write confirmed by some
// replicas only may be missing from the one promoted; and a replica promoted leaves its old primary at once, while
// the others follow that primary a moment longer and would confirm writes the promotion has already left behind.
// A replica that leaves is waited for until a probe after the one that found it gone: Sentinel says whom it
// promotes before that replica leaves, so by then its news has been read, and nothing more is written there.
// A replica that comes between probes is met by the ROLE that follows each write's WAIT.
import { hostPort } from './sentinel-watch.js'

/** Fewer replicas than each write waits for confirmed one: it is answered 503. */
export class ReplicaShortfall extends Error {
  constructor (confirmed: number, wanted: number, withinMs: number) {
    super(`WAIT: ${confirmed} of ${wanted} replicas confirmed the write within ${withinMs} ms`)
  }
}

export class Replicas {
  readonly #floor: number
  /** The primary the replicas below are of (host:port). */
  #primary: string | undefined
  /** Its replicas (host:port, as its ROLE names them): undefined while attached, else the probe that found it gone. */
  readonly #known = new Map<string, number | undefined>()
  /** Replicas a sentinel says are down (+sdown), until one says they are back: none of them can be promoted. */
  readonly #down = new Set<string>()
  #probes = 0

  /** `floor`: REDIS_WAIT_REPLICAS, the fewest a write waits for. */
  constructor (floor: number) {
    this.#floor = floor
  }

  /** How many replicas a write waits for: every one known that no sentinel says is down, and at least the floor. */
  wanted (): number {
    let count = 0
    for (const replica of this.#known.keys()) if (!this.#down.has(replica)) count++
    return Math.max(this.#floor, count)
  }

  /** A probe asks `primary` its ROLE: `attached`, its replicas online. A replica gone since an earlier probe is forgotten. */
  observed (primary: string, attached: string[]): void {
    const probe = ++this.#probes
    if (primary !== this.#primary) {
      this.#primary = primary
      this.#known.clear()
    }
    for (const [replica, gone] of this.#known) {
      if (attached.includes(replica)) continue
      if (gone === undefined) this.#known.set(replica, probe)
      else if (gone < probe) this.#known.delete(replica)
    }
    for (const replica of attached) this.#known.set(replica, undefined)
  }

  /**
   * What a write's ROLE, right behind its WAIT, found: whether a replica came that is not known yet, which may not
   * have the write (it is known from now on, and waited for).
   */
  joined (role: unknown[]): boolean {
    if (role[0] !== 'master') return false
    let joined = false
    for (const [host, port] of role[2] as Array<[string, string]>) {
      const replica = hostPort(host, port)
      if (this.#known.has(replica)) continue
      this.#known.set(replica, undefined)
      joined = true
    }
    return joined
  }

  /** Sentinel's news of a replica: down (+sdown), or back (-sdown). */
  heard (replica: string, down: boolean): void {
    if (down) this.#down.add(replica)
    else this.#down.delete(replica)
  }
}
