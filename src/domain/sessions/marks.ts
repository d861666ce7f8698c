// The memory store's marks for the class board's cursor: a session's place in the order of activity,
// found from the seq of its last touch without walking every session.

/** An item of a list in the order of its seqs, oldest to newest. */
export interface Listed<T> {
  /** Given at each touch, only growing; 0 while unlisted. */
  seq: number
  newer: T | null
}

const MARK_EVERY = 32

/** Every MARK_EVERY-th item touched, with the seq it had then. A mark whose item was touched again or
 * removed no longer matches and is skipped; stale marks are dropped once they are half of them. */
export class Marks<T extends Listed<T>> {
  #items: T[] = []
  #seqs: number[] = []
  #limit = 1024

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
    // The last mark before seq whose item is still where it was marked, then forward from it.
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
    if (start === null || start.seq >= seq) return null
    while (start.newer !== null && start.newer.seq < seq) start = start.newer
    return start
  }
}
