// The environment of `npm start` for a public deployment: proxies, connection limits, and the
// settings that must stop start-up rather than fall back to a default (the rest: test/domain.test.ts).
import t, { type Test } from 'tap'
import { configFromEnv } from '../src/domain/config.js'

function refused (t: Test, env: Record<string, string>, message: string | RegExp): void {
  t.throws(() => configFromEnv(env), { name: 'ConfigError', message }, JSON.stringify(env))
}

t.test('TRUST_PROXY takes false, a number of proxies, or their addresses; true is refused', async t => {
  t.equal(configFromEnv({}).trustProxy, false)
  t.equal(configFromEnv({ TRUST_PROXY: 'false' }).trustProxy, false)
  t.equal(configFromEnv({ TRUST_PROXY: '0' }).trustProxy, false, 'no proxies')
  t.equal(configFromEnv({ TRUST_PROXY: '1' }).trustProxy, 1)
  t.equal(configFromEnv({ TRUST_PROXY: '2' }).trustProxy, 2)
  t.equal(configFromEnv({ TRUST_PROXY: '10.0.0.5' }).trustProxy, '10.0.0.5')
  t.equal(configFromEnv({ TRUST_PROXY: '10.0.0.5, 10.1.0.0/16,::1,fd00::/8 ,loopback' }).trustProxy, '10.0.0.5,10.1.0.0/16,::1,fd00::/8,loopback')
  refused(t, { TRUST_PROXY: 'true' }, 'TRUST_PROXY=true trusts any client\'s X-Forwarded-For; set the number of proxies in front (TRUST_PROXY=1) or their addresses (TRUST_PROXY=10.0.0.5,10.0.1.0/24)')
  for (const bad of ['yes', '101', '1.5', '-1', '10.0.0.1/33', '::1/129', '10.0.0.0/8/1', '10.0.0.1/x', '10.0.0.1,', 'proxy.example']) {
    refused(t, { TRUST_PROXY: bad }, `TRUST_PROXY must be false, a number of proxies (1 to 100), or proxy addresses or CIDRs separated by commas, got ${JSON.stringify(bad)}`)
  }
})

t.test('MAX_CONNECTIONS_PER_CLIENT and MAX_CONNECTIONS are whole numbers, 0 for no limit, and stay out when unset', async t => {
  const config = configFromEnv({})
  t.notOk('maxConnectionsPerClient' in config)
  t.notOk('maxConnections' in config)
  t.equal(configFromEnv({ MAX_CONNECTIONS_PER_CLIENT: '200' }).maxConnectionsPerClient, 200)
  t.equal(configFromEnv({ MAX_CONNECTIONS_PER_CLIENT: '0' }).maxConnectionsPerClient, 0)
  t.equal(configFromEnv({ MAX_CONNECTIONS: '50000' }).maxConnections, 50_000)
  t.equal(configFromEnv({ MAX_CONNECTIONS: '0' }).maxConnections, 0)
  refused(t, { MAX_CONNECTIONS_PER_CLIENT: 'lots' }, 'MAX_CONNECTIONS_PER_CLIENT must be a whole number from 0 to 1000000, got "lots"')
  refused(t, { MAX_CONNECTIONS: '-1' }, 'MAX_CONNECTIONS must be a whole number from 0 to 1000000, got "-1"')
})

t.test('REDIS_URL must be redis:// or rediss://, said with the variable\'s name and without the URL', async t => {
  t.equal(configFromEnv({ REDIS_URL: 'rediss://:secret@cache:6380/1' }).app.redisUrl, 'rediss://:secret@cache:6380/1')
  refused(t, { REDIS_URL: 'http://:secret@cache:6379' }, 'REDIS_URL must be a redis:// or rediss:// URL such as redis://127.0.0.1:6379/0, got a http:// URL')
  refused(t, { REDIS_URL: 'cache:6379' }, 'REDIS_URL must be a redis:// or rediss:// URL such as redis://127.0.0.1:6379/0, got no scheme')
  refused(t, { REDIS_URL: 'redis://' }, /^REDIS_URL must be/)
  refused(t, { REDIS_URL: 'redis://a:b:c:d' }, 'REDIS_URL is a redis:// URL that cannot be read: check its host and port, and percent-encode any @, : or / in its password')
})

t.test('AUTH_USERNAME or AUTH_PASSWORD set but empty is refused, not taken for the default', async t => {
  refused(t, { AUTH_USERNAME: '' }, 'AUTH_USERNAME is set but empty; unset it for the default')
  refused(t, { AUTH_PASSWORD: '' }, 'AUTH_PASSWORD is set but empty; unset it for the default')
  refused(t, { AUTH_PASSWORD: 'two\nlines' }, 'AUTH_PASSWORD must not contain line breaks')
  refused(t, { AUTH_USERNAME: 'two\rlines' }, 'AUTH_USERNAME must not contain line breaks')
  t.same(configFromEnv({ AUTH_USERNAME: 'teacher', AUTH_PASSWORD: 'p a:ss' }).app, { username: 'teacher', password: 'p a:ss' })
})

t.test('REDIS_PREFIX is refused with its own name when the option would refuse it', async t => {
  t.equal(configFromEnv({ REDIS_PREFIX: 'course-a:' }).app.redisKeyPrefix, 'course-a:')
  refused(t, { REDIS_PREFIX: 'has space' }, 'REDIS_PREFIX must be up to 100 characters without spaces')
  refused(t, { REDIS_PREFIX: 'x'.repeat(101) }, 'REDIS_PREFIX must be up to 100 characters without spaces')
})
