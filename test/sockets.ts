// Raw connections for what only a socket shows: requests held half-sent across a server's close.
import { once } from 'node:events'
import { connect } from 'node:net'

/** Resolves once the listener on `port` refuses new connections (it is closed before anything else ends). */
export async function listenerClosed (port: number): Promise<void> {
  for (let attempt = 0; attempt < 10_000; attempt++) {
    const socket = connect(port, '127.0.0.1')
    const refused = await new Promise<boolean>(resolve => {
      socket.once('connect', () => { socket.destroy(); resolve(false) })
      socket.once('error', () => resolve(true))
    })
    if (refused) return
  }
  throw new Error('the listener never closed')
}

/** A connection with a request that has begun but is held back; `rest` completes it. */
export function begun (port: number, start: string) {
  const socket = connect(port, '127.0.0.1')
  socket.setEncoding('utf8')
  let answer = ''
  socket.on('data', (chunk: string) => { answer += chunk })
  socket.on('error', () => {})
  socket.write(start)
  return {
    socket,
    finish: async (rest: string): Promise<string> => {
      socket.write(rest)
      await once(socket, 'close').catch(() => {})
      return answer
    }
  }
}
