// The environment of `npm start` for a public deployment: proxies, connection limits, and the
// settings that must stop start-up rather than fall back to a default (the rest: test/modules/domain.ts);
// then a misspelt setting, named at start-up (src/domain/config/misspelt.ts): nothing else in the environment is judged.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { configFromEnv, SETTINGS as VARIABLES } from '../../src/domain/config/config.js'
import { edits, misspeltSettings } from '../../src/domain/config/misspelt.js'
import { appSettings, CLASS_PRESET, serverSettings } from '../../src/domain/config/settings.js'

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
  t.equal(configFromEnv({ REDIS_WAIT_REPLICAS: '2' }).app.redisWaitReplicas, 2)
  t.throws(() => configFromEnv({ REDIS_WAIT_REPLICAS: '101' }), /^REDIS_WAIT_REPLICAS must be a whole number from 0 to 100, got "101"$/)
  refused(t, { REDIS_PREFIX: 'has space' }, 'REDIS_PREFIX must be up to 100 characters without spaces')
  refused(t, { REDIS_PREFIX: 'x'.repeat(101) }, 'REDIS_PREFIX must be up to 100 characters without spaces')
})

t.test('TRUST_PROXY ranges that together take in every client are refused like true, in one line', async t => {
  const everyone = (value: string, family: string) => `TRUST_PROXY=${value} takes in every ${family} client, so any client's X-Forwarded-For is trusted, as with true; ` +
    'set the number of proxies in front (TRUST_PROXY=1) or their addresses (TRUST_PROXY=10.0.0.5,10.0.1.0/24)'
  const refusedAs: Array<[string, 'IPv4' | 'IPv6']> = [
    // /0 would stop start-up with proxy-addr's stack trace ("invalid range on address").
    ['0.0.0.0/0', 'IPv4'],
    ['10.0.0.0/0', 'IPv4'],
    ['1.2.3.4/00', 'IPv4'],
    ['::/0', 'IPv6'],
    ['::%eth0/0', 'IPv6'],
    // Two halves, and halves written as IPv4-mapped IPv6 ranges, alone or mixed with IPv4.
    ['0.0.0.0/1,128.0.0.0/1', 'IPv4'],
    ['128.0.0.0/1,0.0.0.0/1', 'IPv4'],
    ['::ffff:0:0/96', 'IPv4'],
    ['::ffff:0.0.0.0/97,::ffff:128.0.0.0/97', 'IPv4'],
    ['0.0.0.0/1,::ffff:128.0.0.0/97', 'IPv4'],
    // Host bits are ignored (proxy-addr matches the prefix): 127.255.0.1/1 is 0.0.0.0/1.
    ['127.255.0.1/1,200.0.0.0/1', 'IPv4'],
    // Overlaps, and ranges inside others, do not hide the union.
    ['10.0.0.0/8,0.0.0.0/2,64.0.0.0/2,10.1.0.0/16,128.0.0.0/1', 'IPv4'],
    ['0.0.0.0/1,0.0.0.0/1,128.0.0.0/1,128.0.0.0/2', 'IPv4'],
    // Only multicast and reserved space left out: no client can connect from there.
    ['0.0.0.0/1,128.0.0.0/2,192.0.0.0/3', 'IPv4'],
    ['::/1,8000::/1', 'IPv6'],
    // ::/1 holds ::ffff:0:0/96: every IPv4 client, counted as IPv4 (proxy-addr before 5.1 matched them against it).
    ['::/1', 'IPv4'],
    ['::/1,8000::/2,c000::/3,e000::/4,f000::/5,f800::/6,fc00::/7,fe00::/8', 'IPv6']
  ]
  // Every IPv6 address but the IPv4-mapped ones (::ffff:0:0/96): the 96 ranges beside it, one per prefix length.
  const mapped = 0xffffn << 32n
  const beside = Array.from({ length: 96 }, (_, i) => {
    const host = BigInt(127 - i)
    const prefix = ((mapped ^ (1n << host)) >> host) << host
    return `${prefix.toString(16).padStart(32, '0').match(/.{4}/g)?.join(':')}/${i + 1}`
  })
  refusedAs.push([beside.join(','), 'IPv6'])
  for (const [value, family] of refusedAs) refused(t, { TRUST_PROXY: value }, everyone(value, family))
  refused(t, { TRUST_PROXY: '0.0.0.0/1, 128.0.0.0/1' }, everyone('0.0.0.0/1,128.0.0.0/1', 'IPv4'))

  // A gap of a block, or of one address (0.0.0.0), leaves some client out, but they trust most of the
  // internet all the same: refused by the next rule (the next test).
  const nearly = [
    '0.0.0.0/1,128.0.0.0/2,192.0.0.0/4',
    '0.0.0.0/2,128.0.0.0/1',
    '::ffff:0:0/97',
    '2000::/3,4000::/2,8000::/2,c000::/3,e000::/4,f000::/5,f800::/6,fc00::/7,fe00::/8',
    // The same 96 ranges but one: a /64 of native IPv6 clients is left out.
    beside.filter((_, i) => i !== 63).join(',')
  ]
  for (const value of nearly) refused(t, { TRUST_PROXY: value }, /^TRUST_PROXY=\S+ trusts (over )?[\d,^]+ public IPv[46] addresses \(/)
  for (const value of ['10.0.0.5,10.1.0.0/16,::1,fd00::/8,loopback,linklocal,uniquelocal', '::ffff:10.0.0.5', 'fe80::1%eth0']) {
    t.equal(configFromEnv({ TRUST_PROXY: value }).trustProxy, value, value)
  }
  // A zone proxy-addr cannot read would stop start-up with its stack trace.
  for (const bad of ['fe80::1%eth-0', 'fe80::1%a.b']) {
    refused(t, { TRUST_PROXY: bad }, `TRUST_PROXY must be false, a number of proxies (1 to 100), or proxy addresses or CIDRs separated by commas, got ${JSON.stringify(bad)}`)
  }
})

t.test('TRUST_PROXY ranges that trust more of the internet than a /8 of IPv4 or a /24 of IPv6 are refused in one line naming them (issue 50)', async t => {
  const advice = 'any client among them could name any address in X-Forwarded-For; set the number of proxies in front (TRUST_PROXY=1) or their addresses (TRUST_PROXY=10.0.0.5,10.0.1.0/24)'
  const tooMany = (value: string, count: string, family: string, named: string, limit = family === 'IPv4' ? '16,777,216 (a /8)' : '2^104 (a /24)'): string =>
    `TRUST_PROXY=${value} trusts ${count} public ${family} addresses (${named}), more than the ${limit} allowed: ${advice}`
  // All of IPv4 but 0.0.0.0/8, as eight ranges; all but 0.0.0.0/32, as 32: every public address either way.
  const eight = ['1.0.0.0/8', '2.0.0.0/7', '4.0.0.0/6', '8.0.0.0/5', '16.0.0.0/4', '32.0.0.0/3', '64.0.0.0/2', '128.0.0.0/1']
  refused(t, { TRUST_PROXY: eight.join(',') }, tooMany(eight.join(','), '3,702,258,688', 'IPv4', eight.join(', ')))
  const allBut0 = [...Array.from({ length: 24 }, (_, i) => `${[0, 0, 0, 0].map((_, octet) => octet === 3 - Math.floor(i / 8) ? 1 << (i % 8) : 0).join('.')}/${32 - i}`), ...eight]
  t.equal(allBut0[0], '0.0.0.1/32')
  t.equal(allBut0[23], '0.128.0.0/9')
  refused(t, { TRUST_PROXY: allBut0.join(',') }, tooMany(allBut0.join(','), '3,702,258,688', 'IPv4', eight.join(', ')))
  // IPv6's global unicast, documentation aside; a /4 of it, exactly a power of two.
  refused(t, { TRUST_PROXY: '2000::/3' }, tooMany('2000::/3', 'over 2^124', 'IPv6', '2000::/3'))
  refused(t, { TRUST_PROXY: '10.0.0.5,3000::/4' }, tooMany('10.0.0.5,3000::/4', '2^124', 'IPv6', '3000::/4'))
  // Two /8s of public addresses; NAT64's prefix, which carries every IPv4 client; a /24 of IPv6 and one more address.
  refused(t, { TRUST_PROXY: '2.0.0.0/7' }, tooMany('2.0.0.0/7', '33,554,432', 'IPv4', '2.0.0.0/7'))
  refused(t, { TRUST_PROXY: '64:ff9b::/96' }, tooMany('64:ff9b::/96', '3,702,258,688', 'IPv4', '64:ff9b::/96'))
  refused(t, { TRUST_PROXY: '2a00::/24,2b00::1' }, tooMany('2a00::/24,2b00::1', 'over 2^104', 'IPv6', '2a00::/24, 2b00::1'))
  // Many ranges: the first eight named, and how many more.
  const slices = Array.from({ length: 20 }, (_, i) => `${i + 11}.0.0.0/8`)
  refused(t, { TRUST_PROXY: slices.join(',') }, tooMany(slices.join(','), '335,544,320', 'IPv4', `${slices.slice(0, 8).join(', ')} and 12 more`))

  const kept = [
    // Private, shared (CGNAT), loopback, link-local and unique-local ranges, of any size: a proxy in front is on such a network.
    '10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,100.64.0.0/10,127.0.0.0/8,169.254.0.0/16,fc00::/7,fe80::/10,::1',
    'loopback,linklocal,uniquelocal,0.0.0.0/8,224.0.0.0/3,2001:db8::/32,4000::/2',
    // At the limit: a /8 of public IPv4, a /24 of IPv6.
    '11.0.0.0/8,2a00::/24',
    // Cloudflare's published ranges (2026), IPv4 and IPv6: about 1.5 million IPv4 addresses.
    '173.245.48.0/20,103.21.244.0/22,103.22.200.0/22,103.31.4.0/22,141.101.64.0/18,108.162.192.0/18,190.93.240.0/20,188.114.96.0/20,' +
      '197.234.240.0/22,198.41.128.0/17,162.158.0.0/15,104.16.0.0/13,104.24.0.0/14,172.64.0.0/13,131.0.72.0/22,' +
      '2400:cb00::/32,2606:4700::/32,2803:f800::/32,2405:b500::/32,2405:8100::/32,2a06:98c0::/29,2c0f:f248::/32',
    '1.1.1.1,203.0.113.7,198.51.100.0/24,2001:db8::1,2606:4700::/32'
  ]
  for (const value of kept) t.equal(configFromEnv({ TRUST_PROXY: value }).trustProxy, value, value)
})

t.test('SHUTDOWN_DRAIN_MS is a whole number of milliseconds, 0 for no drain, and stays out when unset', async t => {
  t.notOk('shutdownDrainMs' in configFromEnv({}))
  t.equal(configFromEnv({ SHUTDOWN_DRAIN_MS: '0' }).shutdownDrainMs, 0)
  t.equal(configFromEnv({ SHUTDOWN_DRAIN_MS: '15000' }).shutdownDrainMs, 15_000)
  t.equal(configFromEnv({ SHUTDOWN_DRAIN_MS: '2147483647' }).shutdownDrainMs, 2 ** 31 - 1)
  for (const bad of ['-1', '5s', '2147483648']) {
    refused(t, { SHUTDOWN_DRAIN_MS: bad }, `SHUTDOWN_DRAIN_MS must be a whole number from 0 to 2147483647, got ${JSON.stringify(bad)}`)
  }
})

t.test('REDIS_SENTINELS is host:port pairs, with a master name (default mymaster) and passwords that need it', async t => {
  t.same(configFromEnv({ REDIS_SENTINELS: '10.0.0.1:26379, sentinel-b:26380,[::1]:26381' }).app, { redisSentinels: ['10.0.0.1:26379', 'sentinel-b:26380', '[::1]:26381'] })
  t.same(configFromEnv({ REDIS_SENTINELS: 's:26379', REDIS_SENTINEL_MASTER: 'course', REDIS_SENTINEL_PASSWORD: 'sentinel secret', REDIS_PASSWORD: 'data secret' }).app, {
    redisSentinels: ['s:26379'], redisSentinelMaster: 'course', redisSentinelPassword: 'sentinel secret', redisPassword: 'data secret'
  })
  for (const bad of ['s', 's:', ':26379', 's:0', 's:65536', 's:26379,', 's:26379;t:26379', '::1:26379', 'user@s:26379', 's:26379/0']) {
    refused(t, { REDIS_SENTINELS: bad }, `REDIS_SENTINELS must be the sentinels' host:port separated by commas, such as 10.0.0.1:26379,10.0.0.2:26379, got ${JSON.stringify(bad)}`)
  }
  refused(t, { REDIS_SENTINELS: 's:26379', REDIS_SENTINEL_MASTER: 'my master' }, 'REDIS_SENTINEL_MASTER must be a name without spaces, up to 200 characters')
  refused(t, { REDIS_SENTINELS: 's:26379', REDIS_PASSWORD: '' }, 'REDIS_PASSWORD is set but empty; unset it for the default')
  refused(t, { REDIS_SENTINELS: 's:26379', REDIS_SENTINEL_PASSWORD: 'a\nb' }, 'REDIS_SENTINEL_PASSWORD must not contain line breaks')
  refused(t, { REDIS_URL: 'redis://cache:6379', REDIS_SENTINELS: 's:26379' }, 'set REDIS_URL or REDIS_SENTINELS, not both: with Sentinel, the sentinels say where the primary is')
  refused(t, { REDIS_SENTINEL_MASTER: 'course' }, 'REDIS_SENTINEL_MASTER is set without REDIS_URL or REDIS_SENTINELS')
  refused(t, { REDIS_URL: 'redis://cache:6379', REDIS_PASSWORD: 'secret' }, 'REDIS_PASSWORD is for Sentinel (REDIS_SENTINELS); with REDIS_URL, put the password in the URL: redis://:password@host:port')
  refused(t, { REDIS_URL: 'redis://cache:6379', REDIS_SENTINEL_MASTER: 'course' }, 'REDIS_SENTINEL_MASTER is for Sentinel (REDIS_SENTINELS); with REDIS_URL, leave it unset')
  // With Sentinel, the journals are in Redis too: MAX_SESSIONS is not held to this process's heap.
  t.equal(configFromEnv({ MAX_SESSIONS: '100000000', REDIS_SENTINELS: 's:26379' }).app.maxSessions, 100_000_000)
})

t.test('REDIS_TLS_* name PEM files, read at start; a file that cannot be read, or one of a pair alone, stops start-up naming it', async t => {
  const dir = await mkdtemp(join(tmpdir(), 'api-challenges-config-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const notPem = join(dir, 'not.pem')
  await writeFile(notPem, 'hello\n')
  const missing = join(dir, 'missing.pem')
  refused(t, { REDIS_URL: 'rediss://cache', REDIS_TLS_CA: missing }, `REDIS_TLS_CA=${missing} cannot be read (ENOENT): it must name a PEM file this process may read`)
  refused(t, { REDIS_URL: 'rediss://cache', REDIS_TLS_KEY: dir }, `REDIS_TLS_KEY=${dir} cannot be read (EISDIR): it must name a PEM file this process may read`)
  refused(t, { REDIS_URL: 'rediss://cache', REDIS_TLS_CA: notPem }, `REDIS_TLS_CA=${notPem} holds no PEM certificate (no start line)`)
  refused(t, { REDIS_URL: 'rediss://cache', REDIS_TLS_CERT: notPem }, `REDIS_TLS_CERT=${notPem} and REDIS_TLS_KEY go together (mutual TLS): set both or neither`)
  refused(t, { REDIS_URL: 'rediss://cache', REDIS_TLS_KEY: notPem, REDIS_TLS_CERT: '' }, `REDIS_TLS_CERT and REDIS_TLS_KEY=${notPem} go together (mutual TLS): set both or neither`)
  refused(t, { REDIS_TLS_CA: notPem }, `REDIS_TLS_CA=${notPem} is set without REDIS_URL or REDIS_SENTINELS`)
  // The file's text, not its path, is the option (the certificates themselves: test/redis-connection.test.ts).
  t.throws(() => configFromEnv({ REDIS_URL: 'rediss://cache', REDIS_TLS_CERT: notPem, REDIS_TLS_KEY: notPem }), { name: 'ConfigError', message: new RegExp(`^REDIS_TLS_CERT=${notPem} and the key cannot be used together \\(`) })
})

t.test('PUBLIC_URL is an http:// or https:// URL, with a path or none, kept without its trailing slash; anything else stops start-up in one line', async t => {
  t.notOk('publicUrl' in configFromEnv({}))
  t.equal(configFromEnv({ PUBLIC_URL: '' }).publicUrl, undefined, 'empty is unset')
  t.equal(configFromEnv({ PUBLIC_URL: 'http://192.168.1.20:8080' }).publicUrl, 'http://192.168.1.20:8080')
  t.equal(configFromEnv({ PUBLIC_URL: 'http://192.168.1.20:8080/' }).publicUrl, 'http://192.168.1.20:8080')
  t.equal(configFromEnv({ PUBLIC_URL: 'https://class.example/api-challenges/' }).publicUrl, 'https://class.example/api-challenges')
  t.equal(configFromEnv({ PUBLIC_URL: 'http://[2001:db8::20]:3000' }).publicUrl, 'http://[2001:db8::20]:3000')
  t.notOk('publicUrl' in configFromEnv({ PUBLIC_URL: 'http://192.168.1.20:8080' }).app, 'the server\'s, not the plugin\'s')
  for (const bad of ['192.168.1.20:8080', 'ftp://192.168.1.20', 'http://', 'http:///path', 'http://192.168.1.20:8080/?room=1', 'http://192.168.1.20:8080/#top',
    'http://192.168.1.20:99999', 'http://a host', ' http://192.168.1.20']) {
    refused(t, { PUBLIC_URL: bad }, `PUBLIC_URL must be an http:// or https:// URL such as http://192.168.1.20:8080, got ${JSON.stringify(bad)}`)
  }
  refused(t, { PUBLIC_URL: 'http://teacher:secret@192.168.1.20' }, 'PUBLIC_URL must be an http:// or https:// URL such as http://192.168.1.20:8080, got "http://…@192.168.1.20"')
})

t.test('docs/operations.md has a row for each variable of the settings, with its default', async t => {
  const doc = await readFile(new URL('../../docs/operations.md', import.meta.url), 'utf8')
  const table = doc.slice(doc.indexOf('\n## Settings\n'), doc.indexOf('\n### ', doc.indexOf('\n## Settings\n')))
  // Each row: `NAME` or `NAME`, `NAME`, then the default of each (`value`, or words for none).
  const shown = new Map<string, string | undefined>()
  for (const [, names = '', cell = ''] of table.matchAll(/^\| ([^|]+) \| ([^|]+) \|/gm)) {
    const named = [...names.matchAll(/`(\w+)`/g)].map(name => name[1] as string)
    const cells = named.length === 1 ? [cell] : cell.split(', ')
    named.forEach((name, i) => shown.set(name, /`([^`]+)`/.exec(cells[i] ?? '')?.[1]))
  }
  t.same([...shown.keys()].sort(), VARIABLES, 'a row for each variable')
  t.ok(VARIABLES.length > 25, `${VARIABLES.length} variables`)
  for (const setting of Object.values({ ...serverSettings, ...appSettings })) {
    if (setting.env !== undefined && setting.default !== undefined) t.equal(shown.get(setting.env), String(setting.default), `${setting.env}'s default`)
  }
})

// Misspelt settings (src/domain/config/misspelt.ts).

const SETTINGS = ['PORT', 'HOST', 'MODE', 'DOCS', 'ADMIN_TOKEN', 'REDIS_URL', 'REDIS_PREFIX', 'LOG_LEVEL', 'MAX_SESSIONS', 'TRUST_PROXY']

t.test('edits counts inserts, deletes, changes and swaps of neighbours, up to a most', async t => {
  t.equal(edits('PORT', 'PORT', 2), 0)
  t.equal(edits('PROT', 'PORT', 2), 1, 'two neighbours swapped is one edit')
  t.equal(edits('ADMIN_TOKN', 'ADMIN_TOKEN', 2), 1)
  t.equal(edits('REDIS_ULR', 'REDIS_URL', 2), 1)
  t.equal(edits('HOME', 'HOST', 2), 2)
  t.equal(edits('PRT', 'PORT', 2), 1)
  t.equal(edits('PORTS', 'PORT', 2), 1)
  t.equal(edits('PATH', 'PORT', 5), 3)
  t.equal(edits('X', 'MAX_SESSIONS', 2), 3, 'far apart in length: more than the most, without counting')
  t.equal(edits('LOG_LEVLE_X', 'LOG_LEVEL', 1), 2, 'at most the most plus one')
  t.equal(edits('NODE', 'MODE', 2, 2), 2, 'a change counting two')
  t.equal(edits('PROT', 'PORT', 2, 2), 1, 'a swap still one')
})

t.test('a name one edit from a short setting, two from a longer one, or a setting in another case, is named with the setting', async t => {
  t.same(misspeltSettings(['PORTS', 'PROT', 'ADMIN_TOKN', 'REDIS_ULR', 'port', 'Admin_Token', 'LOG_LVL', 'MAX_SESION'], SETTINGS), [
    'PORTS is not a setting; did you mean PORT?',
    'PROT is not a setting; did you mean PORT?',
    'ADMIN_TOKN is not a setting; did you mean ADMIN_TOKEN?',
    'REDIS_ULR is not a setting; did you mean REDIS_URL?',
    'port is not a setting; did you mean PORT?',
    'Admin_Token is not a setting; did you mean ADMIN_TOKEN?',
    'LOG_LVL is not a setting; did you mean LOG_LEVEL?',
    'MAX_SESION is not a setting; did you mean MAX_SESSIONS?'
  ])
})

t.test('the settings themselves, and the rest of a usual environment, are not judged', async t => {
  const usual = ['NODE', 'PATH', 'HOME', 'HOSTNAME', 'USER', 'SHELL', 'TERM', 'LANG', 'PWD', 'OLDPWD', 'SHLVL', 'LOGNAME', 'TMPDIR', 'TZ', 'EDITOR', 'NODE_ENV',
    'NODE_OPTIONS', 'CI', 'npm_command', 'npm_config_cache', 'npm_lifecycle_event', 'COLORTERM', 'DISPLAY', 'SSH_AUTH_SOCK', 'MAIL', 'XDG_RUNTIME_DIR', 'LS_COLORS']
  t.same(misspeltSettings([...SETTINGS, ...usual], SETTINGS), [])
})

// The class preset (CLASS=1): CLASS_PRESET's values and a made admin token, wherever the environment leaves them unset.

const TOKEN = 'made-for-the-test-0123456789abcdef'

t.test('CLASS=1 sets the idle time, the creation and connection limits, HOST and a made admin token, and says so', async t => {
  const config = configFromEnv({ CLASS: '1' }, () => TOKEN)
  t.equal(config.host, '0.0.0.0', 'learners\' machines reach it')
  t.equal(config.maxConnectionsPerClient, 512, '16 connections for each of 30 learners behind one address')
  t.same(config.app, { sessionIdleMs: 3 * 60 * 60 * 1000, creationRateLimit: 600, basicGuessLimit: 2400, adminToken: TOKEN })
  t.same(config.preset, {
    set: ['SESSION_IDLE_MS=10800000', 'CREATION_RATE_LIMIT=600', 'MAX_CONNECTIONS_PER_CLIENT=512', 'BASIC_GUESS_LIMIT=2400', 'HOST=0.0.0.0'],
    kept: [],
    adminTokenMade: true
  })
  t.equal(configFromEnv({ CLASS: 'true' }, () => TOKEN).preset?.adminTokenMade, true, 'true is on too')
})

t.test('each variable CLASS=1 would set is kept as the environment gives it, and a given ADMIN_TOKEN is not replaced', async t => {
  const given = { CLASS: '1', SESSION_IDLE_MS: '60000', CREATION_RATE_LIMIT: '0', MAX_CONNECTIONS_PER_CLIENT: '0', BASIC_GUESS_LIMIT: '300', HOST: '127.0.0.1', ADMIN_TOKEN: 'the-instructors-own-token' }
  const config = configFromEnv(given, () => { throw new Error('no token is made') })
  t.equal(config.host, '127.0.0.1')
  t.equal(config.maxConnectionsPerClient, 0)
  t.same(config.app, { sessionIdleMs: 60_000, creationRateLimit: 0, basicGuessLimit: 300, adminToken: 'the-instructors-own-token' })
  t.same(config.preset, { set: [], kept: ['SESSION_IDLE_MS', 'CREATION_RATE_LIMIT', 'MAX_CONNECTIONS_PER_CLIENT', 'BASIC_GUESS_LIMIT', 'HOST', 'ADMIN_TOKEN'], adminTokenMade: false })
  // Set but empty is unset, as for the variables themselves; an empty token is refused as ever.
  t.same(configFromEnv({ CLASS: '1', HOST: '', ADMIN_TOKEN: 'the-instructors-own-token' }).preset?.set, ['SESSION_IDLE_MS=10800000', 'CREATION_RATE_LIMIT=600', 'MAX_CONNECTIONS_PER_CLIENT=512', 'BASIC_GUESS_LIMIT=2400', 'HOST=0.0.0.0'])
  refused(t, { CLASS: '1', ADMIN_TOKEN: '' }, 'ADMIN_TOKEN must be 16 to 1,000 visible ASCII characters (no spaces), got 0 characters')
  // A value of the preset's variables is judged as ever.
  refused(t, { CLASS: '1', SESSION_IDLE_MS: 'three hours' }, 'SESSION_IDLE_MS must be a whole number from 1 to 2147483647, got "three hours"')
})

t.test('without CLASS, or with CLASS=0, nothing is preset; another value is refused', async t => {
  for (const env of [{}, { CLASS: '0' }, { CLASS: 'false' }, { CLASS: '' }]) {
    const config = configFromEnv(env, () => { throw new Error('no token is made') })
    t.equal(config.host, '127.0.0.1', JSON.stringify(env))
    t.same(config.app, {})
    t.notOk('preset' in config)
  }
  for (const bad of ['yes', 'on', '2', 'TRUE']) refused(t, { CLASS: bad }, `CLASS must be 1 (on) or 0 (off), got ${JSON.stringify(bad)}`)
})

t.test('CLASS=1 with a log level that hides the start-up message needs a token of the instructor\'s own: the made one would go unsaid', async t => {
  for (const level of ['warn', 'error', 'fatal', 'silent']) {
    refused(t, { CLASS: '1', LOG_LEVEL: level }, `CLASS=1 makes the admin token and says it in the start-up message, which LOG_LEVEL=${level} hides; set ADMIN_TOKEN yourself, or LOG_LEVEL=info`)
  }
  t.equal(configFromEnv({ CLASS: '1', LOG_LEVEL: 'silent', ADMIN_TOKEN: 'the-instructors-own-token' }).logLevel, 'silent')
  for (const level of ['info', 'debug', 'trace']) t.equal(configFromEnv({ CLASS: '1', LOG_LEVEL: level }, () => TOKEN).app.adminToken, TOKEN, level)
  refused(t, { CLASS: '1', LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"')
})

t.test('the made admin token is 48 random hex digits, as openssl rand -hex 24 makes, and new each time', async t => {
  const [first, second] = [configFromEnv({ CLASS: '1' }).app.adminToken, configFromEnv({ CLASS: '1' }).app.adminToken]
  t.match(first, /^[0-9a-f]{48}$/)
  t.match(second, /^[0-9a-f]{48}$/)
  t.not(first, second)
})

t.test('CLASS_PRESET holds only variables of the settings, each a value they take', async t => {
  for (const [name, value] of Object.entries(CLASS_PRESET)) {
    t.ok(VARIABLES.includes(name), name)
    t.doesNotThrow(() => configFromEnv({ [name]: value }), `${name}=${value}`)
  }
})

t.test('DEFECTS: defect ids separated by commas (for grading a suite by hand); blank is none; an unknown id is refused in one line', async t => {
  t.same(configFromEnv({ DEFECTS: 'heartbeat-200, json-as-text' }).app.defects, ['heartbeat-200', 'json-as-text'])
  t.equal(configFromEnv({ DEFECTS: '' }).app.defects, undefined)
  refused(t, { DEFECTS: 'heartbeat-200,nope' }, /^DEFECTS must be defect ids separated by commas: unknown defect "nope" \(the defects are swap-401-403, /)
})
