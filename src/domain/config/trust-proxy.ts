// TRUST_PROXY: whose X-Forwarded-For to believe. Never every hop's: a client could then name any
// address it likes, so `true`, ranges that together take in every client, and ranges that trust
// more of the internet's addresses than any proxies need (PUBLIC_TRUST_LIMIT) are refused.
import { Type } from '@sinclair/typebox'
import { isIP } from 'node:net'
import { everyClientOf, LAN_RANGES, NAMED_RANGES, PUBLIC_TRUST_LIMIT, publicTrustOf, wholeNetworkOf, type PublicTrust } from '../http/address-ranges.js'
import { loopbackOnly } from '../http/addresses.js'
import { ConfigError } from '../http/errors.js'
import type { Setting } from './kinds.js'

/**
 * Which X-Forwarded-For hops to believe (Fastify's trustProxy): none (false), the last `n` (the
 * proxies in front), or those added by the proxies at these addresses or CIDRs (comma-separated;
 * also proxy-addr's names loopback, linklocal, uniquelocal).
 */
export type TrustProxy = false | number | string

const EXAMPLES = 'set the number of proxies in front (TRUST_PROXY=1) or their addresses (TRUST_PROXY=10.0.0.5,10.0.1.0/24)'

/** An address, a CIDR (address/bits) or one of proxy-addr's names. */
function proxyAddress (entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true
  const [address = '', bits, extra] = entry.split('/')
  const family = isIP(address)
  if (family === 0 || extra !== undefined) return false
  // A zone (fe80::1%eth0) that proxy-addr cannot read would stop start-up with a stack trace.
  if (/%(?![0-9a-z]+$)/i.test(address)) return false
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128))
}

/** A count of addresses as a person reads it: IPv4's in full, IPv6's as a power of two. */
function howMany (family: PublicTrust['family'], count: bigint): string {
  if (family === 'IPv4') return count.toLocaleString('en-US')
  const power = count.toString(2).length - 1
  return `${count === 1n << BigInt(power) ? '' : 'over '}2^${power}`
}

/** The refusal of ranges that trust too much of the internet, naming the entries that do. */
function tooPublic (name: string, value: string, { family, count, entries }: PublicTrust): string {
  const named = entries.length > 8 ? `${entries.slice(0, 8).join(', ')} and ${entries.length - 8} more` : entries.join(', ')
  const limit = `${howMany(family, PUBLIC_TRUST_LIMIT[family])} (a /${family === 'IPv4' ? 8 : 24})`
  return `${name}=${value} trusts ${howMany(family, count)} public ${family} addresses (${named}), more than the ${limit} allowed: ` +
    `any client among them could name any address in X-Forwarded-For; ${EXAMPLES}`
}

function read (name: string, raw: string | undefined): TrustProxy | undefined {
  if (raw === undefined || raw === '' || raw === 'false' || raw === '0') return false
  if (raw === 'true') throw new ConfigError(`${name}=true trusts any client's X-Forwarded-For; ${EXAMPLES}`)
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw)
    if (hops <= 100) return hops
  }
  const entries = raw.split(',').map(entry => entry.trim())
  if (!entries.every(proxyAddress)) {
    throw new ConfigError(`${name} must be false, a number of proxies (1 to 100), or proxy addresses or CIDRs separated by commas, got ${JSON.stringify(raw)}`)
  }
  // Ranges that together take in every client (0.0.0.0/0, or 0.0.0.0/1,128.0.0.0/1) are true by another name.
  const everyone = everyClientOf(entries)
  if (everyone !== undefined) {
    throw new ConfigError(`${name}=${entries.join(',')} takes in every ${everyone} client, so any client's X-Forwarded-For is trusted, as with true; ${EXAMPLES}`)
  }
  // Ranges that take in nearly every client (all of IPv4 but 0.0.0.0/8, 2000::/3) are true in all but name.
  const wide = publicTrustOf(entries)
  if (wide !== undefined) throw new ConfigError(tooPublic(name, entries.join(','), wide))
  return entries.join(',')
}

/** The setting: the environment's only (a host configures its own Fastify). */
export function trustProxy (spec: { env: string }): Setting<TrustProxy, false> {
  return {
    schema: Type.Union([Type.Literal(false), Type.Integer({ minimum: 1, maximum: 100 }), Type.String()], { default: false }),
    default: false,
    env: spec.env,
    read
  }
}

/**
 * The start-up warning for a TRUST_PROXY that machines of the network can abuse, or undefined: listening
 * beyond loopback (`host`), a hop count believes whatever connects, and ranges that take in a whole network
 * (a private range, or one this machine is on: `networks`) believe every machine on it. Any of them could then
 * name any client in X-Forwarded-For, and escape every per-address limit.
 */
export function trustWarning (trust: TrustProxy | undefined, host: string, networks: readonly string[]): string | undefined {
  if (trust === undefined || trust === false || loopbackOnly(host)) return undefined
  const escape = 'any of them can name any client in X-Forwarded-For and so escape every per-address limit (sessions made, wrong credentials, admin tokens, connections)'
  if (typeof trust === 'number') {
    return `TRUST_PROXY=${trust} believes the X-Forwarded-For of whatever connects, and HOST=${host} lets every machine that reaches this one connect: ${escape}; ` +
      'behind a proxy, listen on 127.0.0.1 (HOST=127.0.0.1), or give the proxies\' addresses (TRUST_PROXY=10.0.0.5)'
  }
  const network = wholeNetworkOf(trust.split(','), [...networks, ...LAN_RANGES])
  if (network === undefined) return undefined
  return `TRUST_PROXY=${trust} trusts every address of ${network}, a network learners' machines can use, and HOST=${host} lets them connect: ${escape}; ` +
    'give the proxies\' own addresses (TRUST_PROXY=10.0.0.5), or listen on 127.0.0.1 behind them'
}
