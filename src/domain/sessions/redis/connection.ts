// Where and how the Redis store connects (a URL, or Sentinel; TLS or not): ioredis's options, a description
// for log lines (never a password), the settings checked as a whole, and connection errors explained.
import { X509Certificate } from 'node:crypto'
import { createSecureContext } from 'node:tls'
import type { RedisOptions } from 'ioredis'

export interface SentinelAddress {
  host: string
  port: number
}

export interface ConnectionSettings {
  /** One Redis: redis://[[user]:password@]host[:port][/db], or rediss:// for TLS. Not with `sentinels`. */
  url?: string
  /** The sentinels to ask where the primary is, as `host:port` (IPv6: `[addr]:port`). Not with `url`. */
  sentinels?: string[]
  /** Sentinel only (default `mymaster`). */
  sentinelMaster?: string
  /** Sentinel only: the sentinels' own password. */
  sentinelPassword?: string
  /** Sentinel only: the primary's and replicas' password (with a URL, it goes in the URL). */
  password?: string
  /** PEM: the CA that signed Redis's certificate, instead of the system's. Turns TLS on. */
  tlsCa?: string
  /** PEM, for mutual TLS: both or neither. */
  tlsCert?: string
  tlsKey?: string
}

export type SettingNames = Record<keyof ConnectionSettings, string>

export const DEFAULT_SENTINEL_MASTER = 'mymaster'

const SENTINEL_ADDRESS = /^(\[[0-9a-f:.]+\]|[^\s:,[\]/@]+):(\d{1,5})$/i

/** A sentinel's `host:port` ([IPv6]:port), or undefined when it is not one. */
export function sentinelAddress (entry: string): SentinelAddress | undefined {
  const [, host = '', port] = SENTINEL_ADDRESS.exec(entry) ?? []
  const number = Number(port)
  if (!(number >= 1 && number <= 65535)) return undefined
  return { host: host.replace(/^\[(.*)\]$/, '$1'), port: number }
}

/** host:port of a redis:// URL, for log lines: never its username or password. */
export function redisAddress (url: string): string {
  const { hostname, port } = new URL(url)
  return `${hostname === '' ? 'localhost' : hostname}:${port === '' ? '6379' : port}`
}

export function sentinelsAddress (settings: Pick<ConnectionSettings, 'sentinelMaster'> & { sentinels: string[] }): string {
  return `Sentinel ${settings.sentinelMaster ?? DEFAULT_SENTINEL_MASTER} via ${settings.sentinels.join(',')}`
}

// An OpenSSL error's reason, without its codes: `error:0480006C:PEM routines::no start line` → `no start line`.
const reasonOf = (error: unknown): string => (error as Error).message.replace(/^[\s\S]*:(?:error:)?[0-9A-F]{8}:[^:]*:[^:]*:/, '').replace(/:\.\.\/[\s\S]*$/, '').trim()

// Checked here, since Node ignores a CA that is no certificate until it fails at connect.
function tlsProblem (settings: ConnectionSettings): [keyof ConnectionSettings, string] | undefined {
  if (settings.tlsCa !== undefined) {
    try {
      new X509Certificate(settings.tlsCa) // eslint-disable-line no-new
    } catch (error) {
      return ['tlsCa', `holds no PEM certificate (${reasonOf(error)})`]
    }
  }
  try {
    createSecureContext({ cert: settings.tlsCert, key: settings.tlsKey })
  } catch (error) {
    return ['tlsCert', `and the key cannot be used together (${reasonOf(error)})`]
  }
  return undefined
}

const SENTINEL_ONLY = ['sentinelMaster', 'sentinelPassword', 'password'] as const

/** What is wrong with the settings as a whole, in the caller's names; each value is checked on its own by the caller. */
export function settingsProblem (settings: ConnectionSettings, names: SettingNames): string | undefined {
  const { url, sentinels } = settings
  if (url !== undefined && sentinels !== undefined) {
    return `set ${names.url} or ${names.sentinels}, not both: with Sentinel, the sentinels say where the primary is`
  }
  const given = (Object.keys(names) as Array<keyof ConnectionSettings>).filter(key => settings[key] !== undefined)
  if (url === undefined && sentinels === undefined) {
    return given.length === 0 ? undefined : `${names[given[0] as keyof ConnectionSettings]} is set without ${names.url} or ${names.sentinels}`
  }
  const stray = SENTINEL_ONLY.find(key => url !== undefined && settings[key] !== undefined)
  if (stray !== undefined) {
    return `${names[stray]} is for Sentinel (${names.sentinels}); with ${names.url}, ` +
      (stray === 'password' ? 'put the password in the URL: redis://:password@host:port' : 'leave it unset')
  }
  if ((settings.tlsCert === undefined) !== (settings.tlsKey === undefined)) {
    return `${names.tlsCert} and ${names.tlsKey} go together (mutual TLS): set both or neither`
  }
  const problem = tlsProblem(settings)
  return problem === undefined ? undefined : `${names[problem[0]]} ${problem[1]}`
}

export interface Connection {
  /** The URL to pass ioredis with `options`; none with Sentinel. */
  url?: string
  options: RedisOptions
  /** host:port, or `Sentinel <master> via host:port,…`. */
  address: string
  description: string
  /** With Sentinel: whom to listen to for failovers (./sentinel-watch.ts). */
  sentinels?: { addresses: SentinelAddress[], master: string, password?: string | undefined }
}

/** The ioredis options for these settings over `common`; with Sentinel, TLS is for the primary and replicas only. */
export function connection (settings: ConnectionSettings, common: RedisOptions & { retryStrategy: (attempt: number) => number }): Connection {
  const tlsFiles = { ca: settings.tlsCa, cert: settings.tlsCert, key: settings.tlsKey }
  const tls = Object.values(tlsFiles).some(value => value !== undefined)
    ? { tls: Object.fromEntries(Object.entries(tlsFiles).filter(([, value]) => value !== undefined)) }
    : {}
  if (settings.url !== undefined) {
    const address = redisAddress(settings.url)
    return { url: settings.url, options: { ...common, ...tls }, address, description: `Redis at ${address}` }
  }
  if (settings.sentinels === undefined) throw new Error('api-challenges: a Redis store needs a URL or sentinels')
  const sentinels = settings.sentinels.map(entry => sentinelAddress(entry) as SentinelAddress)
  const address = sentinelsAddress({ sentinelMaster: settings.sentinelMaster, sentinels: settings.sentinels })
  const master = settings.sentinelMaster ?? DEFAULT_SENTINEL_MASTER
  return {
    options: {
      ...common,
      sentinels,
      name: master,
      sentinelPassword: settings.sentinelPassword,
      password: settings.password,
      // ioredis uses `tls` for the primary only with this flag; the sentinels would take `sentinelTLS`.
      ...tls,
      enableTLSForSentinelMode: 'tls' in tls,
      // No primary found: retried as a connection is, since a failover is under way.
      sentinelRetryStrategy: common.retryStrategy,
      sentinelCommandTimeout: common.commandTimeout
      // Not ioredis's failoverDetector: quit() leaves its subscriptions open, keeping the process alive, and
      // it hears only the switch, not the choice of a replica before it (see ./sentinel-watch.ts).
    },
    address,
    description: `Redis (${address})`,
    sentinels: { addresses: sentinels, master, password: settings.sentinelPassword }
  }
}

export interface ClientState {
  status: string
  options: { tls?: unknown }
}

/** A connection error as an operator should read it: a wrong kind of port or certificate says so and what to set. */
export function explainConnectionError (error: Error, client: ClientState): string {
  const code = (error as NodeJS.ErrnoException).code ?? ''
  const message = error.message
  if (client.options.tls === undefined) {
    // Connected, then reset before Redis answered its first command: a TLS port drops a plain hello.
    if (code === 'ECONNRESET' && client.status === 'connect') return `${message}: it closed the connection at once: is it a TLS port? then use rediss://`
    return message
  }
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG') return `it does not speak TLS (${reasonOf(error)}): use redis://`
  if (client.status === 'connecting' && (code === 'ETIMEDOUT' || /before secure TLS connection/.test(message))) {
    return `${message}: no TLS handshake: is it a plain port? then use redis://`
  }
  if (code === 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED') return `it asks for a client certificate (${reasonOf(error)}): set REDIS_TLS_CERT and REDIS_TLS_KEY`
  // TLS 1.3 refuses a client certificate after the handshake: the first write may meet the reset instead.
  if (code === 'ECONNRESET' && client.status === 'connect') {
    return `${message}: it closed the connection after the TLS handshake: does it ask for a client certificate? set REDIS_TLS_CERT and REDIS_TLS_KEY`
  }
  if (/^(SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|UNABLE_TO_VERIFY_LEAF_SIGNATURE)$/.test(code)) return `${message}: its certificate is not trusted here: set REDIS_TLS_CA to its CA, or add the CA with NODE_EXTRA_CA_CERTS`
  return message
}
