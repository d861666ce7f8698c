// With sessions in a real Redis, a request followed at once by the client's half-close (FIN) is answered
// (issue 50, item 7): Node ended the socket on the FIN, before the answer that waits on Redis could go out,
// while the session was still made. Starts redis-server: the fast set skips it (.taprc).
import t from 'tap'
import { once } from 'node:events'
import { connect, type AddressInfo } from 'node:net'
import { RedisStore } from '../src/domain/sessions/redis-store.js'
import { createServer } from '../src/server.js'
import { redisMissing, redisServer } from './redis-server.js'

if (redisMissing !== false && process.env.CI === 'true') {
  t.fail(redisMissing)
} else {
  t.test('POST /challenger then a half-close at once: 201 with its session, which the store holds', { skip: redisMissing }, async t => {
    const redis = await redisServer(['--appendonly', 'no'])
    t.teardown(() => redis.remove())
    const store = new RedisStore({ url: redis.url, prefix: 'half-close:', idleMs: 600_000, maxSessions: 100 })
    const app = createServer({ port: 0, host: '127.0.0.1', logLevel: 'silent', app: { store } })
    t.teardown(() => app.close())
    await app.listen({ port: 0, host: '127.0.0.1' })
    await store.connected()
    const socket = connect((app.server.address() as AddressInfo).port, '127.0.0.1')
    socket.setEncoding('latin1')
    let answer = ''
    socket.on('data', (chunk: string) => { answer += chunk })
    socket.end('POST /challenger HTTP/1.1\r\nHost: x\r\n\r\n')
    await once(socket, 'close')
    t.match(answer, /^HTTP\/1\.1 201 /)
    t.equal((await store.counts(0)).live, 1, 'one session made')
    const guid = /\r\nX-Challenger: ([0-9a-f-]{36})\r\n/i.exec(answer)?.[1]
    t.ok(guid !== undefined && (await store.get(guid))?.guid === guid, 'the one answered')
  })
}
