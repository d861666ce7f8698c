// Numbered areas of memory of one size in shared typed-array chunks, for the journals: thousands of
// sessions each hold a number, not an object or a buffer of their own (src/domain/journal/journal.ts).

/** Areas per chunk: 256 journals of 20 entries are 82 KB of integers (and their text areas 164 KB). */
export const CHUNK = 256

/**
 * Numbered areas of `units` elements each, in shared chunks of CHUNK areas: an area holds no
 * object of its own, and numbers of released areas are reused. With none left open, the chunks go.
 */
export class Slab<T extends Int32Array | Buffer> {
  readonly #units: number
  readonly #make: (units: number) => T
  /** The chunks, area / CHUNK: the same array for the slab's life, for a caller's hot path to keep. */
  readonly chunks: readonly T[] = []
  readonly #free: number[] = []
  #made = 0

  constructor (units: number, make: (units: number) => T) {
    this.#units = units
    this.#make = make
  }

  open (): number {
    const area = this.#free.pop() ?? this.#made++
    if (Math.floor(area / CHUNK) === this.chunks.length) (this.chunks as T[]).push(this.#make(CHUNK * this.#units))
    return area
  }

  close (area: number): void {
    this.#free.push(area)
    if (this.#free.length === this.#made) {
      (this.chunks as T[]).length = 0
      this.#free.length = 0
      this.#made = 0
    }
  }

  /** The chunk that holds `area`. */
  chunk (area: number): T {
    return this.chunks[Math.floor(area / CHUNK)] as T
  }

  /** Where `area` begins in its chunk. */
  start (area: number): number {
    return (area % CHUNK) * this.#units
  }
}
