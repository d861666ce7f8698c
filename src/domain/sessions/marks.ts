// The memory store's marks, for the class board's cursor: a session's place in the order of
// activity found from the number (seq) it got at its last touch, in O(page) rather than O(sessions).

/** An item of a list in the order of its seqs, oldest to newest. */
export interface Listed<T> {
  /** Its place in the order: a number that only grows, given at each touch; 0 while unlisted. */
  seq: number
  newer: T | null
}

/** One item in this many (by touch) is marked. */
const MARK_EVERY = 32

/**
 * Every MARK_EVERY-th item touched, with the seq it had then (parallel arrays, in seq order).
 * A mark whose item has been touched again or removed since no longer matches it and is
 * skipped; stale marks are dropped once they are half of them (O(1) amortized per touch).
 */
export class Marks<T extends Listed<T>> {
  #items: T[] = []
  #seqs: number[] = []
  #limit = 1024

  /** Called with each item as it is given its seq: marks one in MARK_EVERY. */
  add (item: T): void {
    if (item.seq % MARK_EVERY !== 0) return
    if (this.#items.length >= this.#limit) {
      const kept = this.#items.map((marked, i) => [marked, this.#seqs[i] as number] as const).filter(([marked, seq]) => marked.seq === seq)
      this.#items = kept.map(([marked]) => marked)
      this.#seqs = kept.map(([, seq]) => seq)
      this.#limit = Math.max(1024, 2 * kept.length)
    }
    this.#items.push(item)
    this.#seqs.push(item.seq)
  }

  /** The most recently touched item touched before `seq` in the list from `oldest`, or null when there is none. */
  before (seq: number, oldest: T | null): T | null {
    // The last mark before seq whose item is still where it was marked...
    let low = 0
    let high = this.#seqs.length
    while (low < high) {
      const middle = (low + high) >> 1
      if ((this.#seqs[middle] as number) < seq) low = middle + 1
      else high = middle
    }
    let start = oldest
    for (let i = low - 1; i >= 0; i--) {
      const marked = this.#items[i] as T
      if (marked.seq === this.#seqs[i]) {
        start = marked
        break
      }
    }
    // ...then forward, over fewer than MARK_EVERY touches' worth of items (more only if marks went stale).
    if (start === null || start.seq >= seq) return null
    while (start.newer !== null && start.newer.seq < seq) start = start.newer
    return start
  }
}
