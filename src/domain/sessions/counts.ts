// Counts per client in fixed windows, in this process: what SessionStore.countCreation does for
// a store that keeps its sessions here (a networked store counts where every instance sees it).
import type { CreationCount } from './store.js'

/** Clients counted at once; past it, the one whose window opened first is forgotten. */
export const MAX_COUNTED = 10_000

interface Window {
  count: number
  /** When it closes, by the clock of the counts. */
  end: number
}

/**
 * A window opens with a client's first count and closes `windowMs` later; the count starts again
 * after it. At most MAX_COUNTED clients are kept (about 130 bytes each): a stranger with more
 * addresses than that within a window can only make the counts forget, and each of its addresses
 * is still held to the limit until then.
 */
export class WindowCounts {
  /** By client, in the order their windows opened (a window that opens again is moved to the end). */
  readonly #windows = new Map<string, Window>()
  readonly #now: () => number

  /** `now`: a clock in milliseconds. */
  constructor (now: () => number) {
    this.#now = now
  }

  /** Adds `add` (1, or 0 to read) to the client's count: the count so far and the window's time left (0 and 0 with none open). */
  count (client: string, windowMs: number, add: number): CreationCount {
    const now = this.#now()
    let window = this.#windows.get(client)
    if (window !== undefined && window.end <= now) {
      this.#windows.delete(client)
      window = undefined
    }
    if (window === undefined) {
      if (add === 0) return { count: 0, msLeft: 0 }
      if (this.#windows.size >= MAX_COUNTED) this.#forgetOldest(now)
      window = { count: 0, end: now + windowMs }
      this.#windows.set(client, window)
    }
    window.count += add
    return { count: window.count, msLeft: window.end - now }
  }

  /** Forgets every closed window, so that the counts take no memory once the clients are gone. */
  sweep (): void {
    const now = this.#now()
    for (const [client, window] of this.#windows) if (window.end <= now) this.#windows.delete(client)
  }

  /** Makes room: the closed windows at the front, else the one that opened first. */
  #forgetOldest (now: number): void {
    for (const [client, window] of this.#windows) {
      if (window.end > now) {
        if (this.#windows.size >= MAX_COUNTED) this.#windows.delete(client)
        return
      }
      this.#windows.delete(client)
    }
  }

  /** Clients with a window open or not yet forgotten. */
  get size (): number {
    return this.#windows.size
  }
}
