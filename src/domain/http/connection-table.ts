// The open connections of the server the bin starts, and their limits: per client and in all, a new
// connection's silence, requests in flight (pipelined) and answers left unread. Plain node:http.
import { createServer as createHttpServer, ServerResponse, type IncomingMessage, type Server as HttpServer, type ServerOptions } from 'node:http'
import type { Server, Socket } from 'node:net'
import { performance } from 'node:perf_hooks'
import { ClientConnections, clientKey } from './connections.js'

export interface ConnectionLimits {
  /** Most open connections per client (see clientKey); 0: no limit. */
  perClient: number
  /** Most open connections in all; 0: no limit. At it, an idle connection makes room for a new one. */
  total: number
  /** Milliseconds a new connection has to send its first request head. */
  firstHeadTimeout: number
  /** Milliseconds the answers of a connection may wait on a client that does not read them. */
  drainTimeout: number
  /** Most requests in flight on one connection (pipelined: parsed, their answers not written out). */
  maxPipelined: number
  /** Most bytes of answers one connection may hold while its client does not read them. */
  maxUnsentBytes: number
  /** Milliseconds a client is refused new connections after pipelining on one past twice maxPipelined. */
  abuserTimeout: number
  /** Called once per cap and server, the first time it acts: one log line names the setting to look at. */
  onLimit: (cap: Cap, client: string) => void
}

export type Cap = 'perClient' | 'total' | 'pipelining'

/** An answer as the bookkeeping sees it (a ServerResponse): what it holds, and its socket once it is its turn. */
export interface Answer {
  readonly writableLength: number
  readonly socket: unknown
}

const kConnection = Symbol('connection')
type Tracked = Socket & { [kConnection]?: Connection }

export function connectionOf (socket: Socket): Connection | undefined {
  return (socket as Tracked)[kConnection]
}

/** One open connection; the server's response class tells it when a request arrives and when its answer is out. */
export class Connection {
  /** Requests whose head has arrived and whose answer is not written out yet. */
  inFlight = 0
  spoke = false
  /** Past maxPipelined: later requests get no answer, and it closes once the earlier ones are out. */
  closing = false
  gone = false
  #refused = 0
  #queue: Answer[] | undefined
  /** Bytes its socket had handed to the kernel at the last look (none yet: -1), and since when that has not moved. */
  #sent = -1
  #stalledSince = 0
  readonly #table: ConnectionTable

  constructor (readonly socket: Socket, readonly client: string, readonly openedAt: number, table: ConnectionTable) {
    this.#table = table
  }

  /** A request's head has arrived, its answer is `answer`: true to serve it, false to leave it unanswered. */
  arrived (answer: Answer): boolean {
    if (this.gone) return false
    const table = this.#table
    if (!this.spoke) {
      this.spoke = true
      table.fresh.delete(this.socket)
    }
    if (this.closing || this.inFlight >= table.limits.maxPipelined) {
      // Those already taken are answered, these not (a client retries them, RFC 9112 §9.3.2); one
      // that keeps sending is closed at once, since each parsed request holds memory.
      this.closing = true
      if (++this.#refused >= table.limits.maxPipelined) table.refuse(this)
      return false
    }
    if (this.inFlight === 0) table.busy++
    else (this.#queue ??= []).push(answer)
    this.inFlight++
    return true
  }

  answered (answer: Answer): void {
    if (this.gone) return
    const queue = this.#queue
    if (queue !== undefined && queue[0] === answer) queue.shift()
    if (--this.inFlight > 0) return
    this.#table.busy--
    if (this.closing) this.socket.destroySoon()
  }

  unsent (): number {
    let bytes = this.socket.writableLength
    for (const answer of this.#queue ?? []) {
      if (answer.socket === null) bytes += answer.writableLength
    }
    return bytes
  }

  /** Whether its client stopped reading while it pipelines: over maxUnsentBytes held, or nothing sent for
   * drainTimeout. A slow server (nothing waiting in the socket) or one answer read slowly is no stall. */
  stalled (now: number): boolean {
    const waiting = this.socket.writableLength
    if (waiting === 0 || this.inFlight < 2) {
      this.#stalledSince = now
      return false
    }
    const { maxUnsentBytes, drainTimeout } = this.#table.limits
    if (this.unsent() > maxUnsentBytes) return true
    // Written less what waits: what the kernel has taken.
    const sent = this.socket.bytesWritten - waiting
    if (sent !== this.#sent) {
      this.#sent = sent
      this.#stalledSince = now
      return false
    }
    return now - this.#stalledSince >= drainTimeout
  }
}

/** A server's open connections and their limits (see ConnectionLimits): at `total`, the oldest silent, else idle, one makes room. */
export class ConnectionTable {
  /** Every connection it keeps, oldest first (a busy one passed over while making room goes last). */
  readonly open = new Set<Socket>()
  readonly fresh = new Set<Socket>()
  busy = 0
  readonly perClient: ClientConnections | undefined
  readonly #refused = new Map<string, number>()
  readonly #warned = { perClient: false, total: false, pipelining: false }
  readonly #now: () => number

  constructor (readonly server: Server, readonly limits: ConnectionLimits, now: () => number = () => performance.now()) {
    this.#now = now
    this.perClient = limits.perClient > 0 ? new ClientConnections(limits.perClient) : undefined
    server.on('connection', (socket: Socket) => this.#admit(socket))
    const every = Math.max(10, Math.min(250, Math.floor(Math.min(limits.firstHeadTimeout, limits.drainTimeout) / 10)))
    let timer: NodeJS.Timeout | undefined
    server.on('listening', () => {
      clearInterval(timer)
      timer = setInterval(() => this.sweep(this.#now()), every).unref()
    })
    server.on('close', () => clearInterval(timer))
  }

  #admit (socket: Socket): void {
    const address = socket.remoteAddress
    if (address === undefined && this.perClient !== undefined) {
      socket.destroy()
      return
    }
    const client = clientKey(address ?? '')
    if (this.#refused.size > 0 && this.#isRefused(client)) {
      socket.destroy()
      return
    }
    if (this.perClient !== undefined && !this.perClient.admit(client)) {
      socket.destroy()
      this.#warn('perClient', client)
      return
    }
    if (this.limits.total > 0 && this.open.size >= this.limits.total) {
      this.#warn('total', client)
      if (!this.#makeRoom()) {
        this.perClient?.release(client)
        socket.destroy()
        return
      }
    }
    const connection = new Connection(socket, client, this.#now(), this);
    (socket as Tracked)[kConnection] = connection
    this.open.add(socket)
    this.fresh.add(socket)
    socket.once('close', () => this.#forget(connection))
  }

  #isRefused (client: string): boolean {
    const until = this.#refused.get(client)
    if (until === undefined) return false
    if (this.#now() < until) return true
    this.#refused.delete(client)
    return false
  }

  /** Closes `connection` and its client's silent ones, and refuses the client for abuserTimeout. */
  refuse (connection: Connection): void {
    this.close(connection)
    this.#refused.set(connection.client, this.#now() + this.limits.abuserTimeout)
    for (const socket of this.fresh) {
      const other = connectionOf(socket) as Connection
      if (other.client === connection.client) this.close(other)
    }
    this.#warn('pipelining', connection.client)
  }

  #warn (cap: Cap, client: string): void {
    if (this.#warned[cap]) return
    this.#warned[cap] = true
    this.limits.onLimit(cap, client)
  }

  /** Closes the oldest connection that has not spoken, else the oldest idle one; false when all are busy. */
  #makeRoom (): boolean {
    const victim = first(this.fresh) ?? this.#oldestIdle()
    if (victim === undefined) return false
    this.close(connectionOf(victim) as Connection)
    return true
  }

  #oldestIdle (): Socket | undefined {
    // A busy one goes last, so that the next search starts past it.
    for (let left = this.busy < this.open.size ? this.open.size : 0; left > 0; left--) {
      const socket = first(this.open) as Socket
      if ((connectionOf(socket) as Connection).inFlight === 0) return socket
      this.open.delete(socket)
      this.open.add(socket)
    }
    return undefined
  }

  close (connection: Connection): void {
    this.#forget(connection)
    connection.socket.destroy()
  }

  #forget (connection: Connection): void {
    if (connection.gone) return
    connection.gone = true
    if (connection.inFlight > 0) this.busy--
    this.open.delete(connection.socket)
    this.fresh.delete(connection.socket)
    this.perClient?.release(connection.client)
  }

  /** Closes the connections whose first request head is late, and those whose answers have stalled. */
  sweep (now: number): void {
    for (const socket of this.fresh) {
      const connection = connectionOf(socket) as Connection
      if (now - connection.openedAt < this.limits.firstHeadTimeout) break
      this.#forget(connection)
      // Half a head gets Node's 408 (through the clientError handler); no bytes, no answer.
      if (socket.bytesRead > 0 && this.server.emit('clientError', requestTimeout(), socket)) socket.destroySoon()
      else socket.destroy()
    }
    for (const socket of this.open) {
      const connection = connectionOf(socket) as Connection
      if (connection.inFlight > 0 && connection.stalled(now)) this.close(connection)
    }
    for (const [client, until] of this.#refused) {
      if (now >= until) this.#refused.delete(client)
    }
  }
}

function first (sockets: Set<Socket>): Socket | undefined {
  return sockets.values().next().value
}

function requestTimeout (): Error {
  return Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' })
}

export function limitConnections (server: Server, limits: ConnectionLimits, now?: () => number): ConnectionTable {
  return new ConnectionTable(server, limits, now)
}

/** Tells its connection when a request arrives and when its answer is out; marks one past maxPipelined `refused`. */
export class CountedResponse extends ServerResponse {
  declare refused?: true

  constructor (request: IncomingMessage, options?: object) {
    // @ts-expect-error Node passes the response options (its highWaterMark) too; @types/node has only the request.
    super(request, options)
    const connection = connectionOf(request.socket)
    if (connection !== undefined && !connection.arrived(this)) this.refused = true
  }

  override detachSocket (socket: Socket): void {
    super.detachSocket(socket)
    connectionOf(socket)?.answered(this)
  }
}

/** A node:http server whose connections a ConnectionTable keeps; a refused request never reaches `handler`. */
export function limitedServer (options: ServerOptions, limits: ConnectionLimits, handler: (request: IncomingMessage, response: ServerResponse) => void): HttpServer {
  const server = createHttpServer({ ...options, ServerResponse: CountedResponse }, (request, response) => {
    if (response.refused !== true) handler(request, response)
  })
  limitConnections(server, limits)
  return server
}
