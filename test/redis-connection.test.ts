// How the Redis store reaches Redis, against real processes: TLS with a CA file and with client
// certificates (mutual TLS), the line said when a plain URL meets a TLS port or the reverse, and
// Sentinel: a primary, a replica and three sentinels, the primary killed, the service serving again
// with the note it acknowledged before. The certificates are made with openssl at test time.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import type { FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import t, { type Test } from 'tap'
import { configFromEnv } from '../src/domain/config/config.js'
import { resolveOptions, type ApiChallengesOptions } from '../src/domain/config/options.js'
import { connection, explainConnectionError, sentinelAddress } from '../src/domain/sessions/redis/connection.js'
import { RedisStore } from '../src/domain/sessions/redis-store.js'
import { Replicas } from '../src/domain/sessions/redis/replicas.js'
import { SentinelNews } from '../src/domain/sessions/redis/sentinel-watch.js'
import { startupMessage } from '../src/server.js'
import { certificates, opensslMissing } from './certificates.js'
import { logged, type LogLine } from './logged.js'
import { freePort, redisMissing, redisServer, type RedisServer } from './redis-server.js'
import { until } from './until.js'

/** The service's own lines about its store. */
const storeLines = (lines: LogLine[]): string[] => lines.filter(line => line.store !== undefined).map(line => line.msg)

async function heartbeat (app: FastifyInstance): Promise<number> {
  return (await app.inject({ method: 'GET', url: '/heartbeat' })).statusCode
}

/** A session with a token: what a note write needs. */
async function session (app: FastifyInstance): Promise<Record<string, string>> {
  const created = await app.inject({ method: 'POST', url: '/challenger' })
  const guid = created.headers['x-challenger'] as string
  const token = await app.inject({ method: 'POST', url: '/secret/token', headers: { 'x-challenger': guid, authorization: 'Basic ' + Buffer.from('admin:password').toString('base64') } })
  return { 'x-challenger': guid, 'x-auth-token': token.headers['x-auth-token'] as string }
}

async function writeNote (app: FastifyInstance, headers: Record<string, string>, note: string): Promise<number> {
  return (await app.inject({ method: 'POST', url: '/secret/note', headers, payload: { note } })).statusCode
}

async function readNote (app: FastifyInstance, headers: Record<string, string>): Promise<string | undefined> {
  const answer = await app.inject({ method: 'GET', url: '/secret/note', headers })
  return answer.statusCode === 200 ? (answer.json() as { note: string }).note : undefined
}

const common = { retryStrategy: () => 100, commandTimeout: 1000 }

t.test('the settings become ioredis options and a description without a password', async t => {
  const url = connection({ url: 'redis://:s3cret@cache:6380/2' }, common)
  t.same([url.url, url.address, url.description, url.options.tls], ['redis://:s3cret@cache:6380/2', 'cache:6380', 'Redis at cache:6380', undefined])
  t.same(connection({ url: 'redis://cache', tlsCa: 'CA' }, common).options.tls, { ca: 'CA' }, 'a CA turns TLS on, even for redis://')
  const sentinels = connection({ sentinels: ['10.0.0.1:26379', '[::1]:26380'], sentinelPassword: 'sentinel-secret', password: 'data-secret' }, common)
  t.equal(sentinels.url, undefined)
  t.equal(sentinels.description, 'Redis (Sentinel mymaster via 10.0.0.1:26379,[::1]:26380)')
  t.match(sentinels.options, {
    sentinels: [{ host: '10.0.0.1', port: 26379 }, { host: '::1', port: 26380 }],
    name: 'mymaster',
    sentinelPassword: 'sentinel-secret',
    password: 'data-secret',
    enableTLSForSentinelMode: false,
    sentinelCommandTimeout: 1000
  })
  t.equal(sentinels.options.sentinelRetryStrategy?.(1), 100, 'a round over the sentinels is retried as a connection is')
  t.same(sentinels.sentinels, { addresses: [{ host: '10.0.0.1', port: 26379 }, { host: '::1', port: 26380 }], master: 'mymaster', password: 'sentinel-secret' }, 'and the sentinels to hear failovers from')
  const tls = connection({ sentinels: ['s:26379'], sentinelMaster: 'course', tlsCert: 'CERT', tlsKey: 'KEY' }, common)
  t.match(tls.options, { name: 'course', tls: { cert: 'CERT', key: 'KEY' }, enableTLSForSentinelMode: true }, 'TLS for the primary and replicas')
  t.equal(tls.options.sentinelTLS, undefined, 'the sentinels in plain TCP')
  t.throws(() => new RedisStore({ prefix: 'p:', idleMs: 1000, maxSessions: 10 }), { message: 'api-challenges: a Redis store needs a URL or sentinels' })
  t.same(sentinelAddress('[fe80::1]:26379'), { host: 'fe80::1', port: 26379 })
  t.equal(sentinelAddress('s:99999'), undefined)
})

t.test('a sentinel\'s messages on a failover are read for this master only, and a switch once however many sentinels say it', async t => {
  const heard: unknown[] = []
  const news = new SentinelNews('mymaster', said => { heard.push(said) })
  news.hear('+switch-master', 'other 127.0.0.1 6379 127.0.0.1 6380')
  news.hear('+switch-master', 'mymaster 127.0.0.1')
  news.hear('+selected-slave', 'slave 127.0.0.1:6380 127.0.0.1 6380 @ other 127.0.0.1 6379')
  news.hear('-failover-abort-slave-timeout', 'master other 127.0.0.1 6379')
  t.same(heard, [], 'another master\'s, or no switch at all: nothing')
  news.hear('+selected-slave', 'slave 127.0.0.1:6380 127.0.0.1 6380 @ mymaster 127.0.0.1 6379')
  news.hear('-failover-abort-slave-timeout', 'master mymaster 127.0.0.1 6379')
  news.hear('+switch-master', 'mymaster 127.0.0.1 6379 ::1 6380')
  news.hear('+switch-master', 'mymaster 127.0.0.1 6379 ::1 6380')
  news.hear('+switch-master', 'mymaster ::1 6380 127.0.0.1 6379')
  news.hear('+sdown', 'slave 127.0.0.1:6381 127.0.0.1 6381 @ mymaster 127.0.0.1 6379')
  news.hear('+sdown', 'slave 127.0.0.1:6381 127.0.0.1 6381 @ other 127.0.0.1 6379')
  news.hear('+sdown', 'master mymaster 127.0.0.1 6379')
  news.hear('+sdown', 'sentinel 0123abcd 127.0.0.1 26379 @ mymaster 127.0.0.1 6379')
  news.hear('-sdown', 'slave 127.0.0.1:6381 127.0.0.1 6381 @ mymaster 127.0.0.1 6379')
  t.same(heard, [
    { news: 'begins', replica: '127.0.0.1:6380' },
    { news: 'abandoned' },
    { news: 'switched', from: '127.0.0.1:6379', to: '[::1]:6380' },
    { news: 'switched', from: '[::1]:6380', to: '127.0.0.1:6379' },
    { news: 'replica', replica: '127.0.0.1:6381', down: true },
    { news: 'replica', replica: '127.0.0.1:6381', down: false }
  ], 'and a replica of this master down or back, not the primary or a sentinel')
})

t.test('each write waits for every replica the primary has (at least REDIS_WAIT_REPLICAS); one gone is waited for until the probe after the one that found it gone', async t => {
  const replicas = new Replicas(1)
  t.equal(replicas.wanted(), 1, 'none known: the floor')
  replicas.observed('10.0.0.1:6379', ['10.0.0.2:6379', '10.0.0.3:6379'])
  t.equal(replicas.wanted(), 2, 'both replicas')
  replicas.observed('10.0.0.1:6379', ['10.0.0.2:6379'])
  t.equal(replicas.wanted(), 2, 'one gone at this probe: still waited for (it may have been promoted; Sentinel\'s news is on its way)')
  replicas.observed('10.0.0.1:6379', ['10.0.0.2:6379'])
  t.equal(replicas.wanted(), 1, 'gone since an earlier probe: forgotten')
  replicas.observed('10.0.0.1:6379', ['10.0.0.2:6379', '10.0.0.3:6379'])
  replicas.observed('10.0.0.1:6379', ['10.0.0.2:6379'])
  replicas.observed('10.0.0.1:6379', ['10.0.0.2:6379', '10.0.0.3:6379'])
  replicas.observed('10.0.0.1:6379', ['10.0.0.2:6379'])
  t.equal(replicas.wanted(), 2, 'back in between: gone anew')
  replicas.heard('10.0.0.3:6379', true)
  t.equal(replicas.wanted(), 1, 'a replica a sentinel says is down is not waited for')
  replicas.heard('10.0.0.3:6379', false)
  t.equal(replicas.wanted(), 2, 'back')
  replicas.observed('10.0.0.9:6379', [])
  t.equal(replicas.wanted(), 1, 'another primary: its own replicas only')
  t.equal(replicas.joined(['master', 100, [['10.0.0.8', '6379', '90']]]), true, 'a write\'s ROLE meets a replica not known')
  t.equal(replicas.wanted(), 1)
  replicas.observed('10.0.0.9:6379', ['10.0.0.8:6379', '[::1]:6380'])
  t.equal(replicas.joined(['master', 100, [['10.0.0.8', '6379', '90'], ['::1', '6380', '100']]]), false, 'known ones, IPv6 in brackets')
  t.equal(replicas.wanted(), 2)
  t.equal(replicas.joined(['slave', '10.0.0.1', 6379, 'connected', 100]), false, 'a replica\'s ROLE: nothing')
  t.equal(new Replicas(3).wanted(), 3, 'never fewer than asked for')
})

t.test('the start-up line names the sentinels and the master, never a password', async t => {
  const config = configFromEnv({ REDIS_SENTINELS: '10.0.0.1:26379,10.0.0.2:26379', REDIS_SENTINEL_PASSWORD: 'sentinel-secret', REDIS_PASSWORD: 'data-secret' })
  t.equal(startupMessage('http://127.0.0.1:3000', config)[0].store, 'Redis (Sentinel mymaster via 10.0.0.1:26379,10.0.0.2:26379), keys api-challenges:*')
  const named = configFromEnv({ REDIS_SENTINELS: 's:26379', REDIS_SENTINEL_MASTER: 'course', REDIS_PREFIX: 'a:' })
  t.equal(startupMessage('http://127.0.0.1:3000', named)[0].store, 'Redis (Sentinel course via s:26379), keys a:*')
})

t.test('a connection error to the wrong kind of port, or with the wrong certificates, says what to set', async t => {
  const error = (message: string, code?: string): Error => Object.assign(new Error(message), { code })
  const plain = { status: 'connect', options: {} }
  const tls = { status: 'connecting', options: { tls: true } }
  t.equal(explainConnectionError(error('read ECONNRESET', 'ECONNRESET'), plain), 'read ECONNRESET: it closed the connection at once: is it a TLS port? then use rediss://')
  t.equal(explainConnectionError(error('read ECONNRESET', 'ECONNRESET'), { ...plain, status: 'ready' }), 'read ECONNRESET', 'a reset once connected is an outage, not a TLS port')
  t.equal(explainConnectionError(error('connect ECONNREFUSED 127.0.0.1:1', 'ECONNREFUSED'), plain), 'connect ECONNREFUSED 127.0.0.1:1')
  t.equal(explainConnectionError(error('Connection is closed.'), plain), 'Connection is closed.')
  const wrongVersion = '80CC3036B07F0000:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/openssl/openssl/ssl/record/ssl3_record.c:355:\n'
  t.equal(explainConnectionError(error(wrongVersion, 'ERR_SSL_WRONG_VERSION_NUMBER'), tls), 'it does not speak TLS (wrong version number): use redis://')
  t.equal(explainConnectionError(error('x:error:0A0000C6:SSL routines:tls_get_more_records:packet length too long:../a.c:1:', 'ERR_SSL_PACKET_LENGTH_TOO_LONG'), tls),
    'it does not speak TLS (packet length too long): use redis://')
  t.equal(explainConnectionError(error('connect ETIMEDOUT', 'ETIMEDOUT'), tls), 'connect ETIMEDOUT: no TLS handshake: is it a plain port? then use redis://')
  t.equal(explainConnectionError(error('Client network socket disconnected before secure TLS connection was established', 'ECONNRESET'), tls),
    'Client network socket disconnected before secure TLS connection was established: no TLS handshake: is it a plain port? then use redis://')
  t.equal(explainConnectionError(error('connect ETIMEDOUT', 'ETIMEDOUT'), { ...tls, status: 'ready' }), 'connect ETIMEDOUT')
  const required = '80CC3036B07F0000:error:0A00045C:SSL routines:ssl3_read_bytes:tlsv13 alert certificate required:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:1601:SSL alert number 116\n'
  t.equal(explainConnectionError(error(required, 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED'), { ...tls, status: 'connect' }),
    'it asks for a client certificate (tlsv13 alert certificate required): set REDIS_TLS_CERT and REDIS_TLS_KEY')
  t.equal(explainConnectionError(error('write ECONNRESET', 'ECONNRESET'), { ...tls, status: 'connect' }),
    'write ECONNRESET: it closed the connection after the TLS handshake: does it ask for a client certificate? set REDIS_TLS_CERT and REDIS_TLS_KEY')
  for (const code of ['SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE']) {
    t.equal(explainConnectionError(error('untrusted', code), tls), 'untrusted: its certificate is not trusted here: set REDIS_TLS_CA to its CA, or add the CA with NODE_EXTRA_CA_CERTS', code)
  }
  t.equal(explainConnectionError(error('Hostname/IP does not match certificate\'s altnames', 'ERR_TLS_CERT_ALTNAME_INVALID'), tls), 'Hostname/IP does not match certificate\'s altnames')
})

t.test('the plugin options for Sentinel and TLS are checked like the others, and never say a password', async t => {
  const refused = (options: ApiChallengesOptions, message: string | RegExp): void => { t.throws(() => resolveOptions(options), { code: 'APICH_OPTION', message }, JSON.stringify(options)) }
  t.same(resolveOptions({ redisSentinels: ['s:26379'], redisSentinelMaster: 'course', redisPassword: 'p' }).redisSentinels, ['s:26379'])
  for (const bad of [[], ['s'], 's:26379', [26379]]) {
    refused({ redisSentinels: bad as string[] }, `api-challenges: option redisSentinels must be a non-empty array of "host:port" strings, got ${JSON.stringify(bad)}`)
  }
  refused({ redisSentinels: ['s:26379'], redisSentinelMaster: 'my master' }, 'api-challenges: option redisSentinelMaster must be a name without spaces, up to 200 characters, got "my master"')
  refused({ redisSentinels: ['s:26379'], redisPassword: 'two\nlines' }, 'api-challenges: option redisPassword must be a non-empty string without line breaks, got 9 characters')
  refused({ redisSentinels: ['s:26379'], redisSentinelPassword: 42 as unknown as string }, 'api-challenges: option redisSentinelPassword must be a non-empty string without line breaks, got number')
  refused({ redisUrl: 'rediss://cache', redisTlsCa: '/etc/ssl/ca.pem' }, 'api-challenges: option redisTlsCa must be PEM text (the file\'s contents, not its path), got 15 characters')
  refused({ redisUrl: 'redis://cache', redisSentinels: ['s:26379'] }, 'api-challenges: set redisUrl or redisSentinels, not both: with Sentinel, the sentinels say where the primary is')
  refused({ redisTlsCert: '-----BEGIN CERTIFICATE-----' }, 'api-challenges: redisTlsCert is set without redisUrl or redisSentinels')
  refused({ redisUrl: 'redis://cache', redisSentinelPassword: 'p' }, 'api-challenges: redisSentinelPassword is for Sentinel (redisSentinels); with redisUrl, leave it unset')
  // With Sentinel, the journals are in Redis: maxSessions is not held to this process's heap.
  t.equal(resolveOptions({ redisSentinels: ['s:26379'], maxSessions: 100_000_000 }).maxSessions, 100_000_000)
})

if ((redisMissing !== false || opensslMissing !== false) && process.env.CI === 'true') {
  t.fail(redisMissing !== false ? redisMissing : opensslMissing as string)
} else {
  t.test('TLS', { skip: redisMissing !== false ? redisMissing : opensslMissing }, async t => {
    const files = await certificates()
    t.teardown(() => files.remove())
    const tlsServer = async (clients: 'yes' | 'no'): Promise<{ server: RedisServer, port: number }> => {
      const port = await freePort()
      const server = await redisServer(['--port', '0', '--tls-port', String(port), '--tls-cert-file', files.serverCert, '--tls-key-file', files.serverKey,
        '--tls-ca-cert-file', files.ca, '--tls-auth-clients', clients])
      t.teardown(() => server.remove())
      return { server, port }
    }
    const { port } = await tlsServer('no')
    const { port: mutualPort } = await tlsServer('yes')
    const plain = await redisServer()
    t.teardown(() => plain.remove())

    t.test('rediss:// with REDIS_TLS_CA serves end to end', async t => {
      const { app, lines } = await logged(t, { ...configFromEnv({ REDIS_URL: `rediss://127.0.0.1:${port}`, REDIS_TLS_CA: files.ca, REDIS_PREFIX: 'tls:' }).app })
      t.equal(await heartbeat(app), 204)
      const headers = await session(app)
      t.equal(await writeNote(app, headers, 'over TLS'), 200)
      t.equal(await readNote(app, headers), 'over TLS')
      t.same(storeLines(lines).filter(notLoad), [`Redis at 127.0.0.1:${port} connected`])
      // It is in that Redis, read by a client of its own.
      const admin = new Redis(`rediss://127.0.0.1:${port}`, { tls: { ca: readFileSync(files.ca, 'utf8') } })
      t.teardown(() => admin.disconnect())
      t.equal(await admin.hlen('tls:sessions'), 1)
    })

    t.test('a CA file turns TLS on for a redis:// URL too', async t => {
      const { app } = await logged(t, configFromEnv({ REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_TLS_CA: files.ca }).app)
      t.equal(await heartbeat(app), 204)
    })

    t.test('a Redis that asks for client certificates serves with REDIS_TLS_CERT and REDIS_TLS_KEY, and says so without them', async t => {
      const env = { REDIS_URL: `rediss://127.0.0.1:${mutualPort}`, REDIS_TLS_CA: files.ca, REDIS_PREFIX: 'mtls:' }
      const { app } = await logged(t, configFromEnv({ ...env, REDIS_TLS_CERT: files.clientCert, REDIS_TLS_KEY: files.clientKey }).app)
      const headers = await session(app)
      t.equal(await writeNote(app, headers, 'mutual'), 200)
      t.equal(await readNote(app, headers), 'mutual')

      const without = await logged(t, configFromEnv(env).app)
      await until('the line', () => storeLines(without.lines).length > 0)
      t.equal(await heartbeat(without.app), 503)
      t.match(storeLines(without.lines)[0], new RegExp(`^Redis at 127\\.0\\.0\\.1:${mutualPort} cannot be reached \\(.*client certificate.*set REDIS_TLS_CERT and REDIS_TLS_KEY\\)`))
    })

    t.test('a certificate from another CA is refused, and the line says which variable to set', async t => {
      const { app, lines } = await logged(t, configFromEnv({ REDIS_URL: `rediss://127.0.0.1:${port}`, REDIS_TLS_CA: files.otherCa }).app)
      await until('the line', () => storeLines(lines).length > 0)
      t.equal(await heartbeat(app), 503)
      t.match(storeLines(lines)[0], 'its certificate is not trusted here: set REDIS_TLS_CA to its CA, or add the CA with NODE_EXTRA_CA_CERTS')
    })

    t.test('a plain URL to a TLS port, and rediss:// to a plain port, each get a line that says so', async t => {
      const toTls = await logged(t, { redisUrl: `redis://127.0.0.1:${port}` })
      const toPlain = await logged(t, { redisUrl: `rediss://127.0.0.1:${plain.port}` })
      await until('both lines', () => storeLines(toTls.lines).length > 0 && storeLines(toPlain.lines).length > 0)
      t.equal(await heartbeat(toTls.app), 503)
      t.equal(await heartbeat(toPlain.app), 503)
      t.match(storeLines(toTls.lines)[0], new RegExp(`^Redis at 127\\.0\\.0\\.1:${port} cannot be reached \\(.*it closed the connection at once: is it a TLS port\\? then use rediss://\\)`))
      t.match(storeLines(toPlain.lines)[0], new RegExp(`^Redis at 127\\.0\\.0\\.1:${plain.port} cannot be reached \\(.*(no TLS handshake: is it a plain port\\? then use|it does not speak TLS \\(.*\\): use) redis://\\)`))
    })

    t.test('a client certificate and a key that are not a pair stop start-up in one line', async t => {
      t.throws(() => configFromEnv({ REDIS_URL: `rediss://127.0.0.1:${port}`, REDIS_TLS_CERT: files.clientCert, REDIS_TLS_KEY: files.serverKey }),
        { name: 'ConfigError', message: `REDIS_TLS_CERT=${files.clientCert} and the key cannot be used together (key values mismatch)` })
      t.throws(() => configFromEnv({ REDIS_URL: `rediss://127.0.0.1:${port}`, REDIS_TLS_CA: files.clientKey }),
        { name: 'ConfigError', message: `REDIS_TLS_CA=${files.clientKey} holds no PEM certificate (no start line)` })
    })
  })

  t.test('Sentinel', { skip: redisMissing }, async t => {
    const primary = await redisServer()
    t.teardown(() => primary.remove())
    const replica = await redisServer(['--replicaof', '127.0.0.1', String(primary.port)])
    t.teardown(() => replica.remove())
    const onReplica = new Redis(replica.url)
    t.teardown(() => onReplica.disconnect())
    // Its first sync waits for Redis's diskless-sync delay (5 s).
    await until('the replica in sync', async () => /master_link_status:up/.test(await onReplica.info('replication')), 60_000)
    const sentinels = await Promise.all([0, 1, 2].map(async () => await sentinel(t, primary.port)))
    const admins = sentinels.map(port => new Redis(port, '127.0.0.1').on('error', () => {}))
    t.teardown(() => { for (const admin of admins) admin.disconnect() })
    // A failover needs two sentinels that agree, each knowing the replica and the other two.
    await until('the sentinels know the replica and each other', async () => {
      for (const admin of admins) {
        const [replicas, others] = await Promise.all([admin.call('SENTINEL', 'REPLICAS', 'mymaster'), admin.call('SENTINEL', 'SENTINELS', 'mymaster')]) as unknown[][]
        if (replicas?.length !== 1 || others?.length !== 2) return false
      }
      return true
    }, 60_000)

    const list = sentinels.map(port => `127.0.0.1:${port}`).join(',')
    const { app, lines } = await logged(t, configFromEnv({ REDIS_SENTINELS: list, REDIS_PREFIX: 'sentinel:' }).app)
    t.equal(await heartbeat(app), 204)
    const headers = await session(app)
    t.equal(await writeNote(app, headers, 'before the failover'), 200)
    // The service's own wait for replicas is another test's: here an admin client makes sure the replica has it.
    const onPrimary = new Redis(primary.url)
    t.equal(await onPrimary.call('WAIT', '1', '1000'), 1, 'the replica has the note')
    onPrimary.disconnect()

    await primary.stop()
    const killed = performance.now()
    await until('503 once the primary is gone', async () => await heartbeat(app) === 503)
    await until('the note read again after the failover', async () => await heartbeat(app) === 204 && await readNote(app, headers) === 'before the failover')
    const after = performance.now() - killed
    t.ok(after <= 20_000, `serving again ${Math.round(after)} ms after the kill`)
    t.comment(`kill -9 of the primary → serving again: ${Math.round(after)} ms`)
    t.equal(await writeNote(app, headers, 'after the failover'), 200, 'and it writes to the new primary')
    t.match(await onReplica.info('replication'), /role:master/, 'the replica was promoted')
    const description = `Redis (Sentinel mymaster via ${list})`
    const changes = storeLines(lines).filter(notLoad).map(line => line.startsWith(`${description} `) ? line.slice(description.length + 1).replace(/ \(.*/s, '').replace(/ after [\d.]+ s$/, '') : line)
    t.same(changes, ['connected', 'is unreachable', 'is failing over', 'has a new primary', 'connected again'], `one line per change, naming the sentinels: ${description}`)
  })
}

/**
 * Not a line about what these tests do: on a loaded machine (CI) a probe can wait past its second, and
 * the store says so, and then that it answers again. The connection's own lines are kept.
 */
function notLoad (line: string): boolean {
  return !/ (stopped answering \(no answer within|answers again after)/.test(line)
}

/** A sentinel watching the primary at `primaryPort` (quorum 2), down after a second; stopped on teardown. Its port. */
async function sentinel (t: Test, primaryPort: number): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'api-challenges-sentinel-'))
  const port = await freePort()
  const config = join(dir, 'sentinel.conf')
  await writeFile(config, [
    `port ${port}`, 'bind 127.0.0.1', 'protected-mode no', 'daemonize no', `dir ${dir}`,
    `sentinel monitor mymaster 127.0.0.1 ${primaryPort} 2`,
    'sentinel down-after-milliseconds mymaster 1000',
    'sentinel failover-timeout mymaster 10000', ''
  ].join('\n'))
  const child: ChildProcess = spawn(process.env.REDIS_SERVER ?? 'redis-server', [config, '--sentinel'], { stdio: ['ignore', 'pipe', 'inherit'] })
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit')
      child.kill('SIGKILL')
      await exited
    }
    await rm(dir, { recursive: true, force: true })
  })
  let out = ''
  await new Promise<void>((resolve, reject) => {
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk
      if (out.includes('+monitor master')) resolve()
    })
    child.on('exit', code => { reject(new Error(`redis-server --sentinel exited with ${code}: ${out}`)) })
  })
  child.stdout?.resume()
  return port
}
