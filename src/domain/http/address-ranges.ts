// TRUST_PROXY's ranges as proxy-addr reads them: whether they take in every client, and how many
// public addresses they trust. One 128-bit space holds both families (IPv4 as ::ffff:a.b.c.d, as
// proxy-addr matches it).
import { isIP } from 'node:net'

type Interval = readonly [first: bigint, last: bigint]

const MAPPED = 0xffffn << 32n
const ALL_ONES = (1n << 128n) - 1n

/** proxy-addr's names, with the ranges it gives them. */
export const NAMED_RANGES: ReadonlyMap<string, readonly string[]> = new Map([
  ['loopback', ['127.0.0.1/8', '::1/128']],
  ['linklocal', ['169.254.0.0/16', 'fe80::/10']],
  ['uniquelocal', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7']]
])

// The addresses a client can connect from: no multicast, nor IPv4's reserved 240.0.0.0/4.
const CLIENTS: ReadonlyArray<readonly [family: 'IPv4' | 'IPv6', Interval[]]> = [
  ['IPv6', [[0n, MAPPED - 1n], [MAPPED + (1n << 32n), (0xff00n << 112n) - 1n]]],
  ['IPv4', [[MAPPED, MAPPED + 0xdfffffffn]]]
]

function ipv4 (address: string): bigint {
  return address.split('.').reduce((value, part) => (value << 8n) | BigInt(part), 0n)
}

function ipv6 (address: string): bigint {
  const text = address.replace(/%.*$/, '').replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, tail => {
    const value = ipv4(tail)
    return `${(value >> 16n).toString(16)}:${(value & 0xffffn).toString(16)}`
  })
  const [head = '', tail] = text.split('::')
  const groups = (part: string | undefined): string[] => part === undefined || part === '' ? [] : part.split(':')
  const left = groups(head)
  const right = groups(tail)
  const all = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
  return all.reduce((value, group) => (value << 16n) | BigInt(`0x${group}`), 0n)
}

function interval (entry: string): Interval {
  const [address = '', bits] = entry.split('/')
  const v4 = isIP(address) === 4
  const value = v4 ? MAPPED | ipv4(address) : ipv6(address)
  const host = BigInt((v4 ? 32 : 128) - (bits === undefined ? (v4 ? 32 : 128) : Number(bits)))
  const first = value & (ALL_ONES ^ ((1n << host) - 1n))
  return [first, first + (1n << host) - 1n]
}

/** Sorted, and overlapping or adjacent intervals made one. */
function merged (intervals: Interval[]): Interval[] {
  const sorted = [...intervals].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
  const out: Array<[bigint, bigint]> = []
  for (const [first, last] of sorted) {
    const previous = out[out.length - 1]
    if (previous !== undefined && first <= previous[1] + 1n) previous[1] = last > previous[1] ? last : previous[1]
    else out.push([first, last])
  }
  return out
}

function covers (intervals: Interval[], [first, last]: Interval): boolean {
  let next = first
  for (const [start, end] of intervals) {
    if (start > next) return false
    if (end >= next) next = end + 1n
    if (next > last) return true
  }
  return false
}

/** The family whose every client these entries (addresses, CIDRs, proxy-addr's names) trust, if any. */
export function everyClientOf (entries: readonly string[]): 'IPv4' | 'IPv6' | undefined {
  const intervals = merged(entries.flatMap(entry => NAMED_RANGES.get(entry) ?? [entry]).map(interval))
  for (const [family, clients] of CLIENTS) {
    if (clients.every(range => covers(intervals, range))) return family
  }
  return undefined
}

/** The addresses of `all` but those of `out` (sorted, disjoint, and inside `all`). */
function without ([first, last]: Interval, out: Interval[]): Interval[] {
  const kept: Interval[] = []
  let next = first
  for (const [start, end] of out) {
    if (start > next) kept.push([next, start - 1n])
    next = end + 1n
  }
  if (next <= last) kept.push([next, last])
  return kept
}

/** How many addresses `a` and `b` (each sorted and disjoint) have in common. */
function shared (a: Interval[], b: Interval[]): bigint {
  let count = 0n
  for (const [first, last] of a) {
    for (const [start, end] of b) {
      const from = first > start ? first : start
      const to = last < end ? last : end
      if (from <= to) count += to - from + 1n
    }
  }
  return count
}

// IPv4 that no client on the internet has (RFC 6890's not globally reachable): this network,
// private, shared (CGNAT), loopback, link-local, protocol assignments, documentation, benchmarking,
// multicast and reserved.
const NOT_PUBLIC_IPV4 = ['0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24',
  '192.0.2.0/24', '192.168.0.0/16', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24', '224.0.0.0/3']
/** The internet's addresses: IPv4's but those above; IPv6's global unicast (2000::/3) but documentation. */
const PUBLIC: Readonly<Record<'IPv4' | 'IPv6', Interval[]>> = {
  IPv4: without(interval('0.0.0.0/0'), merged(NOT_PUBLIC_IPV4.map(interval))),
  IPv6: without(interval('2000::/3'), [interval('2001:db8::/32')])
}
/** NAT64's well-known prefix: a client there is the IPv4 client in its last 32 bits. */
const NAT64 = interval('64:ff9b::/96')

/**
 * The most public addresses TRUST_PROXY may trust, per family: a /8's worth of IPv4 (16,777,216) and
 * a /24's of IPv6 (2^104). A CDN's published ranges fit (Cloudflare's: about 1.5 million IPv4, less
 * than a /28 of IPv6); a provider's whole space, or the internet less a few blocks, does not.
 */
export const PUBLIC_TRUST_LIMIT: Readonly<Record<'IPv4' | 'IPv6', bigint>> = { IPv4: 1n << 24n, IPv6: 1n << 104n }

/** An entry's intervals, with NAT64's counted again as the IPv4 they carry. */
function trusted (entry: string): Interval[] {
  return (NAMED_RANGES.get(entry) ?? [entry]).map(interval).flatMap(([first, last]) => {
    const from = first > NAT64[0] ? first : NAT64[0]
    const to = last < NAT64[1] ? last : NAT64[1]
    return from <= to ? [[first, last], [from - NAT64[0] + MAPPED, to - NAT64[0] + MAPPED]] : [[first, last]]
  })
}

/** Too many public addresses trusted: the family, how many, and the entries that trust some of them. */
export interface PublicTrust {
  family: 'IPv4' | 'IPv6'
  count: bigint
  entries: string[]
}

/** The first family in which `entries` trust more public addresses than PUBLIC_TRUST_LIMIT, if any. */
export function publicTrustOf (entries: readonly string[]): PublicTrust | undefined {
  const all = merged(entries.flatMap(trusted))
  for (const family of ['IPv4', 'IPv6'] as const) {
    const count = shared(all, PUBLIC[family])
    if (count > PUBLIC_TRUST_LIMIT[family]) {
      return { family, count, entries: entries.filter(entry => shared(merged(trusted(entry)), PUBLIC[family]) > 0n) }
    }
  }
  return undefined
}

/** The networks a LAN uses whatever this machine's own are: IPv4's private and shared ranges, IPv6's unique-local and link-local. */
export const LAN_RANGES: readonly string[] = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16', 'fc00::/7', 'fe80::/10']

/** The first of `networks` (CIDRs) whose every address `entries` trust, if any. */
export function wholeNetworkOf (entries: readonly string[], networks: readonly string[]): string | undefined {
  const all = merged(entries.flatMap(entry => NAMED_RANGES.get(entry) ?? [entry]).map(interval))
  return networks.find(network => covers(all, interval(network.replace(/%[^/]*/, ''))))
}
