// The ids of the last `limit` sessions to end, for "this session expired" (store.ts's expiredRecently).
// A ring of slots and a map from each id to its slot, so that adding and asking take the same time
// however many are kept: a Set that drops its oldest through values().next() walks past every id
// deleted before it (docs/benchmarks.md, "Optimisations kept").
export class LastIds {
  readonly #slots: Array<string | undefined>
  readonly #slotOf = new Map<string, number>()
  #next = 0

  constructor (limit: number) {
    this.#slots = new Array<string | undefined>(limit).fill(undefined)
  }

  /** Remembers `id` as the newest; the oldest is forgotten once `limit` are kept. */
  add (id: string): void {
    const old = this.#slots[this.#next]
    // An id added again since keeps its newer slot.
    if (old !== undefined && this.#slotOf.get(old) === this.#next) this.#slotOf.delete(old)
    this.#slots[this.#next] = id
    this.#slotOf.set(id, this.#next)
    this.#next = (this.#next + 1) % this.#slots.length
  }

  has (id: string): boolean {
    return this.#slotOf.has(id)
  }

  clear (): void {
    this.#slots.fill(undefined)
    this.#slotOf.clear()
    this.#next = 0
  }
}
