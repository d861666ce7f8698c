// Whose request it is, behind proxies (TRUST_PROXY, issue 50): ranges that trust nearly every client
// stop start-up; an X-Forwarded-For client that is no address is refused, and never counted as a client.
import type { FastifyInstance } from 'fastify'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { forwardedAddress, withoutPorts } from '../../src/domain/http/forwarded.js'
import { main } from '../../src/server.js'

/** Runs `start` with stderr captured. */
async function stderrOf<T> (start: () => Promise<T>): Promise<[T, string]> {
  const write = process.stderr.write
  let text = ''
  process.stderr.write = ((chunk: string) => { text += chunk; return true }) as typeof write
  try {
    return [await start(), text]
  } finally {
    process.stderr.write = write
  }
}

/** `npm start`'s server in this process with `env`, on a free port; closed with the test. */
async function started (t: Test, env: Record<string, string>): Promise<(method: string, path: string, forwarded: string, headers?: Record<string, string>) => Promise<{ status: number, body: string, headers: Headers }>> {
  const app = await main({ PORT: '0', LOG_LEVEL: 'silent', ...env }) as FastifyInstance
  t.teardown(() => app.close())
  const port = (app.server.address() as AddressInfo).port
  return async (method, path, forwarded, headers = {}) => {
    const answer = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers: { 'x-forwarded-for': forwarded, ...headers } })
    return { status: answer.status, body: await answer.text(), headers: answer.headers }
  }
}

const refusal = (client: string): string => JSON.stringify({
  errorMessages: [`X-Forwarded-For names the client as ${JSON.stringify(client)}, which is not an IP address: a proxy in front must pass on the client's address`]
})

t.test('an X-Forwarded-For entry names an address with or without its port, as proxies write them, or names none', async t => {
  const cases: Array<[string, string | undefined]> = [
    ['203.0.113.7', '203.0.113.7'],
    [' 203.0.113.7\t', '203.0.113.7'],
    ['203.0.113.7:5678', '203.0.113.7'],
    ['203.0.113.7:65535', '203.0.113.7'],
    ['2001:db8::1', '2001:db8::1'],
    ['[2001:db8::1]:443', '2001:db8::1'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['::ffff:203.0.113.7', '::ffff:203.0.113.7'],
    ['fe80::1%eth0', 'fe80::1%eth0'],
    ['203.0.113.7:65536', undefined],
    ['203.0.113.7:80:90', undefined],
    ['999.0.113.7:80', undefined],
    ['[garbage]:80', undefined],
    ['[2001:db8::1', undefined],
    ['unknown', undefined],
    ['_hidden', undefined],
    ['example.com:80', undefined],
    ['', undefined]
  ]
  for (const [entry, address] of cases) t.equal(forwardedAddress(entry), address, JSON.stringify(entry))
  t.equal(withoutPorts('unknown, 203.0.113.7:5678,[2001:db8::1]:443 ,198.51.100.1'), 'unknown, 203.0.113.7, 2001:db8::1, 198.51.100.1')
})

t.test('behind a trusted proxy, a client that is no address gets 400 and never a creation allowance of its own (issue 50)', async t => {
  const send = await started(t, { TRUST_PROXY: 'loopback', CREATION_RATE_LIMIT: '2' })
  const create = async (forwarded: string): Promise<number> => (await send('POST', '/challenger', forwarded)).status
  t.equal(await create('203.0.113.7'), 201)
  t.equal(await create('203.0.113.7:5678'), 201, 'the same client, its port aside')
  t.equal(await create('203.0.113.7:5679'), 429, 'over its limit, whatever its port')
  for (const garbage of ['garbage', 'garbage-2', 'unknown', '203.0.113.7x', '[203.0.113.7]x', '203.0.113.7:99999']) {
    const answer = await send('POST', '/challenger', garbage)
    t.same([answer.status, answer.body, answer.headers.get('x-challenger')], [400, refusal(garbage), null], `${garbage}: refused, no session made`)
  }
  const long = await send('POST', '/challenger', 'x'.repeat(500))
  t.same([long.status, long.body], [400, refusal(`${'x'.repeat(60)}…`)], 'a long one is shown cut')
  t.equal(await create('garbage, 203.0.113.8'), 201, 'a client\'s own entries, past the trusted hop, are never read')
  t.equal(await create('[2001:db8::1]:443, 127.0.0.1'), 201, 'an IPv6 client written with its port, behind two trusted hops')
  t.equal(await create('2001:db8::1'), 201, 'the same client')
  t.equal(await create('2001:db8::2'), 429, 'and its /64')

  // The refusal comes before the session is looked up: nothing is journaled, nothing touched.
  const made = await send('POST', '/challenger', '198.51.100.1')
  const guid = made.headers.get('x-challenger') as string
  const heartbeat = await send('GET', '/heartbeat', 'not-an-address', { 'x-challenger': guid })
  t.same([heartbeat.status, heartbeat.headers.get('content-type')], [400, 'application/json; charset=utf-8'])
  const journal = JSON.parse((await send('GET', `/challenger/${guid}/requests`, '198.51.100.1')).body) as { requests: Array<{ method: string, path: string }> }
  t.same(journal.requests.map(entry => `${entry.method} ${entry.path}`), ['POST /challenger'], 'the refused heartbeat is not in the journal')
})

t.test('with TRUST_PROXY=1, or with an admin token, a client that is no address is refused the same; without TRUST_PROXY the header is not read', async t => {
  const hops = await started(t, { TRUST_PROXY: '1', ADMIN_TOKEN: 'a'.repeat(32) })
  const forged = await hops('POST', '/challenger', 'forged, garbage')
  t.same([forged.status, forged.body], [400, refusal('garbage')], 'the hop the proxy is trusted to have added')
  const guess = await hops('GET', '/admin/sessions', 'garbage', { authorization: `Bearer ${'b'.repeat(32)}` })
  t.equal(guess.status, 400, 'no admin guess is judged for it')
  const direct = await started(t, {})
  t.equal((await direct('POST', '/challenger', 'garbage')).status, 201, 'the client is the socket\'s address')
})

t.test('TRUST_PROXY that trusts all of IPv4 but 0.0.0.0/8, as eight ranges, stops start-up with one line', async t => {
  const eight = '1.0.0.0/8,2.0.0.0/7,4.0.0.0/6,8.0.0.0/5,16.0.0.0/4,32.0.0.0/3,64.0.0.0/2,128.0.0.0/1'
  const [app, said] = await stderrOf(async () => await main({ PORT: '0', LOG_LEVEL: 'silent', TRUST_PROXY: eight }))
  t.equal(app, undefined)
  t.equal(said, `api-challenges: TRUST_PROXY=${eight} trusts 3,702,258,688 public IPv4 addresses (${eight.replaceAll(',', ', ')}), more than the 16,777,216 (a /8) allowed: ` +
    'any client among them could name any address in X-Forwarded-For; set the number of proxies in front (TRUST_PROXY=1) or their addresses (TRUST_PROXY=10.0.0.5,10.0.1.0/24)\n')
})
