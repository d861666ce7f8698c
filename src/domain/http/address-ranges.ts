// TRUST_PROXY's ranges as proxy-addr reads them, and whether they take in every client. One 128-bit
// space holds both families (IPv4 as ::ffff:a.b.c.d, as proxy-addr matches it).
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
  const intervals = entries.flatMap(entry => NAMED_RANGES.get(entry) ?? [entry]).map(interval)
  intervals.sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
  for (const [family, clients] of CLIENTS) {
    if (clients.every(range => covers(intervals, range))) return family
  }
  return undefined
}
