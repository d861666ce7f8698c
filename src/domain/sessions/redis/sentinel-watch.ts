// Every sentinel's news of a failover of this service's primary, so that the store follows it at once
// rather than at its next reconnection: the replica Sentinel chose to promote (from then on, a write
// to the old primary would be wiped when it is demoted), a failover given up, and the switch itself;
// and of its replicas found down or back (a replica down cannot be promoted: writes stop waiting for it).
import { isIP } from 'node:net'
import { Redis } from 'ioredis'
import type { SentinelAddress } from './connection.js'

export type FailoverNews =
  /** Sentinel chose `replica` (host:port) to promote. */
  | { news: 'begins', replica: string }
  /** Sentinel gave the failover up before the switch (the promotion timed out). */
  | { news: 'abandoned' }
  /** The sentinels moved the primary from `from` to `to` (host:port each). */
  | { news: 'switched', from: string, to: string }

/** A sentinel found a replica of the primary down (+sdown), or back (-sdown). */
export interface ReplicaNews { news: 'replica', replica: string, down: boolean }
export type SentinelNewsItem = FailoverNews | ReplicaNews

// Published by the sentinel doing the failover, but +switch-master, which each sentinel says as it learns it;
// each sentinel says the replicas' +sdown and -sdown as it finds them.
const CHANNELS = ['+selected-slave', '-failover-abort-slave-timeout', '+switch-master', '+sdown', '-sdown']
// The channels' messages: <master> <old-ip> <old-port> <new-ip> <new-port>;
// slave <ip>:<port> <ip> <port> @ <master> <master-ip> <master-port> (a replica's, +sdown's too); master <master> <ip> <port>.
const SWITCHED = /^(\S+) (\S+) (\d+) (\S+) (\d+)$/
const SELECTED = /^slave \S+ (\S+) (\d+) @ (\S+) /
const ABORTED = /^master (\S+) /

function ignore (): void {}

/** host:port, IPv6 in brackets (as connection.ts takes a sentinel's). */
export const hostPort = (host: string, port: string | number): string => isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`

/** What a sentinel's message on one of CHANNELS says of `master`; undefined for another master's, or of another instance. */
function failoverNews (channel: string, message: string, master: string): SentinelNewsItem | undefined {
  if (channel === '+sdown' || channel === '-sdown') {
    const words = SELECTED.exec(message)
    return words?.[3] === master ? { news: 'replica', replica: hostPort(words[1] as string, words[2] as string), down: channel === '+sdown' } : undefined
  }
  if (channel === '+switch-master') {
    const words = SWITCHED.exec(message)
    if (words?.[1] !== master) return undefined
    return { news: 'switched', from: hostPort(words[2] as string, words[3] as string), to: hostPort(words[4] as string, words[5] as string) }
  }
  if (channel === '+selected-slave') {
    const words = SELECTED.exec(message)
    return words?.[3] === master ? { news: 'begins', replica: hostPort(words[1] as string, words[2] as string) } : undefined
  }
  return ABORTED.exec(message)?.[1] === master ? { news: 'abandoned' } : undefined
}

/** Reads the sentinels' messages for `master`, and tells `listener` each failover's news once, however many sentinels say it. */
export class SentinelNews {
  readonly #master: string
  readonly #listener: (news: SentinelNewsItem) => void
  #switchedTo: string | undefined

  constructor (master: string, listener: (news: SentinelNewsItem) => void) {
    this.#master = master
    this.#listener = listener
  }

  hear (channel: string, message: string): void {
    const news = failoverNews(channel, message, this.#master)
    if (news === undefined) return
    if (news.news === 'switched') {
      if (news.to === this.#switchedTo) return
      this.#switchedTo = news.to
    }
    this.#listener(news)
  }
}

export interface WatchOptions {
  addresses: SentinelAddress[]
  master: string
  password?: string | undefined
  connectTimeoutMs: number
}

/** Subscribes to every sentinel for the news of `options.master` (see SentinelNews). */
export class SentinelWatch {
  readonly #clients: Redis[]

  constructor (options: WatchOptions, listener: (news: SentinelNewsItem) => void) {
    const news = new SentinelNews(options.master, listener)
    this.#clients = options.addresses.map(({ host, port }) => {
      const client = new Redis({ host, port, password: options.password, connectTimeout: options.connectTimeoutMs, retryStrategy: () => 250, maxRetriesPerRequest: null })
      // A sentinel away is tried again in silence: the store's own connection says when Redis cannot be found.
      client.on('error', ignore)
      client.on('message', (channel: string, message: string) => { news.hear(channel, message) })
      client.subscribe(...CHANNELS).catch(ignore)
      return client
    })
  }

  close (): void {
    for (const client of this.#clients) client.disconnect()
  }
}
