// The open connections of the server the bin starts, and their limits: per client and in all, a new
// connection's silence, requests in flight (pipelined), answers left unread and bodies sent too slowly.
// Plain node:http.
import { createServer as createHttpServer, ServerResponse, type IncomingMessage, type Server as HttpServer, type ServerOptions } from 'node:http'
import type { Server, Socket } from 'node:net'
import { performance } from 'node:perf_hooks'
import { ClientConnections, clientKey } from './connections.js'
import { PipeliningOffenders, sessionOf } from './pipelining-offenders.js'

export interface ConnectionLimits {
  /** Most open connections per client (see clientKey); 0: no limit. */
  perClient: number
  /** Most open connections in all; 0: no limit. At it, an idle connection makes room for a new one. */
  total: number
  /** Milliseconds a new connection has to send its first request head. */
  firstHeadTimeout: number
  /** Milliseconds an answer may wait on a client that takes none of it (then the connection is closed). */
  drainTimeout: number
  /** Most requests in flight on one connection (pipelined: parsed, their answers not written out). */
  maxPipelined: number
  /** Most bytes of answers one connection may hold while its client does not read them. */
  maxUnsentBytes: number
  /** Milliseconds a client is refused new connections after pipelining on one past twice maxPipelined. */
  abuserTimeout: number
  /** Offences a client may have within abuserTimeout, each holding the offending session's requests only, before
   * the client is refused (pipelining-offenders.ts; CLASS=1: a room behind one address); 1 or none: the first. */
  offencesPerClient?: number
  /** Milliseconds a request body may take before minBodyRate applies. */
  bodyGrace: number
  /** Bytes a second a request body must arrive at once bodyGrace is over (below it: 408, closed); 0: no minimum. */
  minBodyRate: number
  /** Called once per cap and server, the first time it acts: one log line names the setting to look at. */
  onLimit: (cap: Cap, client: string) => void
}

export type Cap = 'perClient' | 'total' | 'pipelining'

/** An answer as the bookkeeping sees it (a ServerResponse): what it holds, its socket once it is its turn,
 * whether it has begun, and its request (whose body may still be arriving, or waiting to be read). */
export interface Answer {
  readonly writableLength: number
  readonly socket: unknown
  readonly headersSent: boolean
  readonly req: { readonly complete: boolean, readonly readableLength: number, readonly headers?: { [name: string]: string | string[] | undefined } }
}

/** What a sweep makes of a connection with requests in flight: its client takes its answer and sends its body
 * (or it is the server's turn), has moved nothing since the last look, or is to be closed (with a 408: `slow`). */
export type Progress = 'moving' | 'stalled' | 'stuck' | 'slow'

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
  /** Past maxPipelined, or its last request was one the server ends it with: later requests get no answer,
   * and it closes once the earlier ones are out. */
  closing = false
  gone = false
  #refused = 0
  #queue: Answer[] | undefined
  /** The latest request taken: the one whose body may still be arriving. */
  #latest: Answer | undefined
  /** What the sweep last watched (the bytes the kernel took of the answers, or the bytes read of a body), its
   * count then, and since when that has not moved. */
  #watched: 'answer' | 'body' | undefined
  #mark = -1
  #since = 0
  /** The body the rate applies to, when the sweep first saw it arriving, and the bytes read by then. */
  #body: Answer | undefined
  #bodyFrom = 0
  #bodyRead = 0
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
    // In a class, the session that kept pipelining is refused (any of its address's connections), not the address.
    if (table.offenders?.holds(this.client, sessionOf(answer.req.headers)) === true) {
      table.close(this)
      return false
    }
    if (this.closing || this.inFlight >= table.limits.maxPipelined) {
      // Those already taken are answered, these not (a client retries them, RFC 9112 §9.3.2); one
      // that keeps sending is closed at once, since each parsed request holds memory.
      this.closing = true
      if (++this.#refused >= table.limits.maxPipelined) table.refuse(this, sessionOf(answer.req.headers))
      return false
    }
    if (this.inFlight === 0) table.busy++
    else (this.#queue ??= []).push(answer)
    this.inFlight++
    this.#latest = answer
    return true
  }

  answered (answer: Answer): void {
    if (this.gone) return
    const queue = this.#queue
    if (queue !== undefined && queue[0] === answer) queue.shift()
    if (--this.inFlight > 0) return
    this.#table.busy--
    // Idle: nothing of its last request is kept.
    this.#latest = undefined
    this.#body = undefined
    if (this.closing) this.socket.destroySoon()
  }

  unsent (): number {
    let bytes = this.socket.writableLength
    for (const answer of this.#queue ?? []) {
      if (answer.socket === null) bytes += answer.writableLength
    }
    return bytes
  }

  /** The sweep's look at a connection with requests in flight. `stuck`: its client has taken nothing of its answers
   * for drainTimeout, or holds over maxUnsentBytes of them while it pipelines; `slow`: its body has arrived below
   * minBodyRate since bodyGrace; `stalled`: nothing moved since the last look. The server's own turn is `moving`. */
  look (now: number): Progress {
    const { socket } = this
    const limits = this.#table.limits
    const waiting = socket.writableLength
    const latest = this.#latest as Answer
    let watched: 'answer' | 'body'
    let mark: number
    if (waiting > 0) {
      if (this.inFlight > 1 && this.unsent() > limits.maxUnsentBytes) return 'stuck'
      // Written less what waits: what the kernel has taken.
      watched = 'answer'
      mark = socket.bytesWritten - waiting
    } else if (!latest.headersSent && !latest.req.complete && latest.req.readableLength === 0) {
      // Its body is the client's to send (bytes read and not yet taken by the app would be the server's turn).
      watched = 'body'
      mark = socket.bytesRead
      if (this.#body !== latest) {
        this.#body = latest
        this.#bodyFrom = now
        this.#bodyRead = mark
      }
      const late = now - this.#bodyFrom - limits.bodyGrace
      if (late > 0 && mark - this.#bodyRead < limits.minBodyRate * late / 1000) return 'slow'
    } else {
      this.#watched = undefined
      return 'moving'
    }
    if (watched !== this.#watched || mark !== this.#mark) {
      this.#watched = watched
      this.#mark = mark
      this.#since = now
      return 'moving'
    }
    return watched === 'answer' && now - this.#since >= limits.drainTimeout ? 'stuck' : 'stalled'
  }

  /** Whether it has still moved nothing since the sweep found it stalled. */
  unmoved (): boolean {
    const { socket } = this
    const mark = this.#watched === 'answer' ? socket.bytesWritten - socket.writableLength : socket.bytesRead
    return mark === this.#mark
  }
}

/** A server's open connections and their limits (see ConnectionLimits): at `total`, the oldest silent, else idle,
 * else stalled one makes room. */
export class ConnectionTable {
  /** Every connection it keeps, oldest first (a busy one passed over while making room goes last). */
  readonly open = new Set<Socket>()
  readonly fresh = new Set<Socket>()
  /** Those whose client moved nothing (took none of its answer, sent none of its body) at the last sweep, longest first. */
  readonly stalled = new Set<Socket>()
  busy = 0
  readonly perClient: ClientConnections | undefined
  readonly #refused = new Map<string, number>()
  readonly #warned = { perClient: false, total: false, pipelining: false }
  readonly #now: () => number
  readonly offenders: PipeliningOffenders | undefined

  constructor (readonly server: Server, readonly limits: ConnectionLimits, now: () => number = () => performance.now()) {
    this.#now = now
    const offences = limits.offencesPerClient ?? 1
    this.offenders = offences > 1 ? new PipeliningOffenders(offences, limits.abuserTimeout, now) : undefined
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

  /** Closes `connection` and its client's silent ones, and refuses the client for abuserTimeout (in a class, past its offences). */
  refuse (connection: Connection, session = ''): void {
    this.close(connection)
    if (this.offenders?.offend(connection.client, session) === 'session') {
      this.#warn('pipelining', connection.client)
      return
    }
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

  /** Closes the oldest connection that has not spoken, else the oldest idle one, else the one stalled longest;
   * false when all are busy and moving. */
  #makeRoom (): boolean {
    const victim = first(this.fresh) ?? this.#oldestIdle() ?? this.#longestStalled()
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

  #longestStalled (): Socket | undefined {
    for (const socket of this.stalled) {
      if ((connectionOf(socket) as Connection).unmoved()) return socket
      this.stalled.delete(socket)
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
    this.stalled.delete(connection.socket)
    this.perClient?.release(connection.client)
  }

  /** Closes `connection` with Node's 408 (through the clientError handler), or without a word when `speak` is false
   * or the server has no such handler. */
  #timeOut (connection: Connection, speak: boolean): void {
    const { socket } = connection
    this.#forget(connection)
    if (speak && this.server.emit('clientError', requestTimeout(), socket)) socket.destroySoon()
    else socket.destroy()
  }

  /** Closes the connections whose first request head is late, whose answers have stalled and whose bodies come
   * too slowly; notes those that moved nothing since the last sweep. */
  sweep (now: number): void {
    for (const socket of this.fresh) {
      const connection = connectionOf(socket) as Connection
      if (now - connection.openedAt < this.limits.firstHeadTimeout) break
      // Half a head gets the 408; no bytes, no answer.
      this.#timeOut(connection, socket.bytesRead > 0)
    }
    for (const socket of this.open) {
      const connection = connectionOf(socket) as Connection
      const progress = connection.inFlight > 0 ? connection.look(now) : 'moving'
      if (progress === 'stalled') this.stalled.add(socket)
      else this.stalled.delete(socket)
      if (progress === 'stuck') this.close(connection)
      // A slow body gets the 408 when its answer is the next to go out.
      else if (progress === 'slow') this.#timeOut(connection, connection.inFlight === 1)
    }
    for (const [client, until] of this.#refused) {
      if (now >= until) this.#refused.delete(client)
    }
    this.offenders?.sweep(now)
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

/** Makes `response`'s request the last its connection serves: its answer says Connection: close, the requests
 * pipelined after it get none, and the connection closes once the answers before are out. */
export function lastOnItsConnection (response: ServerResponse): void {
  response.shouldKeepAlive = false
  const connection = connectionOf(response.req.socket)
  if (connection !== undefined) connection.closing = true
}

/** A node:http server whose connections a ConnectionTable keeps; a refused request never reaches `handler`. */
export function limitedServer (options: ServerOptions, limits: ConnectionLimits, handler: (request: IncomingMessage, response: ServerResponse) => void): HttpServer {
  const server = createHttpServer({ ...options, ServerResponse: CountedResponse }, (request, response) => {
    if (response.refused !== true) handler(request, response)
  })
  // A request followed at once by the client's half-close (FIN) is answered, then the connection closes. Node's
  // default ends the socket on the FIN, before an answer that waits on Redis can be written.
  Object.assign(server, { httpAllowHalfOpen: true })
  limitConnections(server, limits)
  return server
}
