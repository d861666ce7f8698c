// The calls every request makes (the lookup, the note write, the challenge bit, the journal entry)
// are gathered for one turn of the event loop and sent as one script (lua/batch.lua): under load, one
// command for all the requests read in that turn, where each call was a command of its own. Each
// call's result is its own; a batch that fails (Redis away, or too slow) fails each of its calls.

/** A call in a batch: its promise's ends, and whether it resolves once sent (see Batch.call). */
interface Caller { resolve: (result: unknown) => void, reject: (error: unknown) => void, sent: boolean }

export class Batch {
  /** The calls of this turn of the event loop, and the callers waiting for their results. */
  #calls: Array<string | number> = []
  #waiting: Caller[] = []
  /** Sends a batch's calls as one command: its results, one per call, in order. */
  readonly #send: (calls: Array<string | number>) => Promise<unknown[]>

  constructor (send: (calls: Array<string | number>) => Promise<unknown[]>) {
    this.#send = send
  }

  /**
   * Adds a call to this turn's batch. Resolves with its own result; or, `sent`, once the batch has
   * been written to Redis's connection, without waiting for Redis's answer (and never rejects: what
   * the call does may be lost with the batch).
   */
  call<T> (sent: boolean, ...call: Array<string | number>): Promise<T> {
    if (this.#waiting.length === 0) setImmediate(this.#flush)
    for (const part of call) this.#calls.push(part)
    return new Promise<T>((resolve, reject) => {
      this.#waiting.push({ resolve: resolve as (result: unknown) => void, reject, sent })
    })
  }

  readonly #flush = (): void => {
    const calls = this.#calls
    const waiting = this.#waiting
    this.#calls = []
    this.#waiting = []
    // The command is written to the connection before #send first awaits: the sent calls are out.
    this.#send(calls).then(results => {
      for (let i = 0; i < waiting.length; i++) {
        const caller = waiting[i] as Caller
        if (!caller.sent) caller.resolve(results[i])
      }
    }, (error: unknown) => {
      for (const caller of waiting) if (!caller.sent) caller.reject(error)
    })
    for (const caller of waiting) if (caller.sent) caller.resolve(undefined)
  }
}
