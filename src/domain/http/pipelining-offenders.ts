// Pipelining offenders in a classroom (CLASS=1): a connection that keeps pipelining past the limit holds its
// own session first, not its whole address, which a room behind one NAT shares. Its session's requests
// are refused for a while, from any connection of that address; only when the address has offended
// `perClient` times within that while (sessions, or connections that named none) is the address refused,
// as it is at once outside a class. Plain bookkeeping: the connection table (connection-table.ts) acts.

/** The session a request names, as the offence is kept: X-CHALLENGER's first value in lowercase; '' for none. */
export function sessionOf (headers: { [name: string]: string | string[] | undefined } | undefined): string {
  const named = headers?.['x-challenger']
  const first = Array.isArray(named) ? named[0] : named
  // Longer ones are answered 431 anyway; the key stays small.
  return first === undefined ? '' : first.slice(0, 100).toLowerCase()
}

export class PipeliningOffenders {
  /** `${client} ${session}` → until when its requests are refused. */
  readonly #held = new Map<string, number>()
  /** client → when each of its offences within `timeoutMs` was. */
  readonly #offences = new Map<string, number[]>()

  constructor (readonly perClient: number, readonly timeoutMs: number, readonly now: () => number) {}

  /** Whether a request of `client` naming `session` is to be refused: its session offended lately. */
  holds (client: string, session: string): boolean {
    if (this.#held.size === 0 || session === '') return false
    const until = this.#held.get(`${client} ${session}`)
    if (until === undefined) return false
    if (this.now() < until) return true
    this.#held.delete(`${client} ${session}`)
    return false
  }

  /** An offence of `client` by a connection naming `session`: 'client' when the address is to be refused now. */
  offend (client: string, session: string): 'client' | 'session' {
    const now = this.now()
    if (session !== '') this.#held.set(`${client} ${session}`, now + this.timeoutMs)
    const recent = (this.#offences.get(client) ?? []).filter(at => at > now - this.timeoutMs)
    recent.push(now)
    this.#offences.set(client, recent)
    return recent.length >= this.perClient ? 'client' : 'session'
  }

  /** Forgets what is over. */
  sweep (now: number): void {
    for (const [key, until] of this.#held) if (now >= until) this.#held.delete(key)
    for (const [client, times] of this.#offences) if ((times.at(-1) as number) <= now - this.timeoutMs) this.#offences.delete(client)
  }
}
