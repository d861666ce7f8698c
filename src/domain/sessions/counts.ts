// Counts per client in fixed windows, in this process: countCreation for a store that keeps its sessions here.
import type { CreationCount } from './store.js'

/** Clients counted at once; past it, the one whose window opened first is forgotten. */
export const MAX_COUNTED = 10_000

interface Window {
  count: number
  end: number
}

/** A window opens with a client's first count and closes `windowMs` later. Past MAX_COUNTED clients, a
 * stranger with more addresses can only make the counts forget; each address is still held to the limit. */
export class WindowCounts {
  readonly #windows = new Map<string, Window>()
  readonly #now: () => number

  constructor (now: () => number) {
    this.#now = now
  }

  /** Adds `add` (1, or 0 to read) to the client's count; the count so far and the window's time left. */
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

  get size (): number {
    return this.#windows.size
  }
}
