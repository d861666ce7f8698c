// Who a connection's client is, and how many connections it may hold, so that one client's idle
// sockets cannot use up the file descriptors (connection-table.ts applies the limits).
import { readFileSync } from 'node:fs'
import { isIPv4, isIPv6 } from 'node:net'

/** The client an address counts as: IPv4 as is, IPv4-mapped IPv6 as its IPv4, other IPv6 as its /64 (a host
 * is usually given a whole /64). */
export function clientKey (address: string): string {
  if (isIPv4(address)) return address
  // A zone (`fe80::1%eth0`) names the interface, not the host.
  const bare = address.split('%', 1)[0] as string
  if (!isIPv6(bare)) return address
  const groups = ipv6Groups(bare)
  if (groups.slice(0, 5).every(group => group === 0) && groups[5] === 0xffff) {
    const [high, low] = [groups[6] as number, groups[7] as number]
    return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`
  }
  return `${groups.slice(0, 4).map(group => group.toString(16)).join(':')}::/64`
}

function ipv6Groups (address: string): number[] {
  const parse = (part: string): number[] => part === ''
    ? []
    : part.split(':').flatMap(group => {
      if (!group.includes('.')) return [parseInt(group, 16)]
      const [a, b, c, d] = group.split('.').map(Number) as [number, number, number, number]
      return [(a << 8) | b, (c << 8) | d]
    })
  const [head, tail] = address.split('::') as [string, string | undefined]
  const start = parse(head)
  if (tail === undefined) return start
  const end = parse(tail)
  return [...start, ...new Array<number>(8 - start.length - end.length).fill(0), ...end]
}

/** Open connections per client; the bookkeeping behind `maxConnectionsPerClient`. */
export class ClientConnections {
  readonly #open = new Map<string, number>()

  /** @param limit most open connections per client */
  constructor (readonly limit: number) {}

  /** Counts a new connection of `client`, or says false (and counts nothing) when it already has `limit`. */
  admit (client: string): boolean {
    const open = this.#open.get(client) ?? 0
    if (open >= this.limit) return false
    this.#open.set(client, open + 1)
    return true
  }

  release (client: string): void {
    const open = this.#open.get(client) ?? 0
    if (open <= 1) this.#open.delete(client)
    else this.#open.set(client, open - 1)
  }

  count (client: string): number {
    return this.#open.get(client) ?? 0
  }

  get clients (): number {
    return this.#open.size
  }
}

/** The default for the total: 10,000, or fewer when the open-file limit is lower (see openFileLimit). */
export function defaultMaxConnections (openFiles: number | undefined): number {
  // Keep 100 descriptors for everything else: Redis, the files /docs serves, the log.
  return openFiles === undefined ? 10_000 : Math.max(1, Math.min(10_000, openFiles - 100))
}

/** The soft open-file limit from /proc/self/limits (Node has no API for it); undefined if unreadable or unlimited. */
export function openFileLimit (limits: () => string = () => readFileSync('/proc/self/limits', 'utf8')): number | undefined {
  let text: string
  try {
    text = limits()
  } catch {
    return undefined
  }
  const soft = /^Max open files\s+(\d+)\s/m.exec(text)?.[1]
  return soft === undefined ? undefined : Number(soft)
}
