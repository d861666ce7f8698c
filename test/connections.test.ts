// Who a client is and how many connections it may hold (the table that applies the limits:
// test/connection-table.test.ts).
import t from 'tap'
import { clientKey, ClientConnections, defaultMaxConnections, openFileLimit } from '../src/domain/connections.js'

t.test('clientKey: IPv4 as it is, IPv4-mapped IPv6 as IPv4, other IPv6 by its /64', async t => {
  t.equal(clientKey('203.0.113.7'), '203.0.113.7')
  t.equal(clientKey('::ffff:127.0.0.2'), '127.0.0.2')
  t.equal(clientKey('::ffff:7f00:2'), '127.0.0.2', 'the mapped address in hex')
  t.equal(clientKey('::FFFF:192.0.2.255'), '192.0.2.255')
  t.equal(clientKey('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64')
  t.equal(clientKey('2001:db8:1:2::9'), '2001:db8:1:2::/64', 'another address of the same /64')
  t.equal(clientKey('2001:0DB8:0001:0002:ffff:0:0:1'), '2001:db8:1:2::/64', 'capitals and leading zeros')
  t.equal(clientKey('2001:db8:1:3::1'), '2001:db8:1:3::/64', 'the next /64 is another client')
  t.equal(clientKey('2001:db8::'), '2001:db8:0:0::/64')
  t.equal(clientKey('::1'), '0:0:0:0::/64')
  t.equal(clientKey('::'), '0:0:0:0::/64')
  t.equal(clientKey('fe80::1%eth0'), 'fe80:0:0:0::/64', 'the zone is dropped')
  t.equal(clientKey('64:ff9b::192.0.2.1'), '64:ff9b:0:0::/64', 'an IPv4 tail that is not a mapped address')
  t.equal(clientKey('::ffff:0:1.2.3.4'), '0:0:0:0::/64', 'not the mapped prefix')
  t.equal(clientKey(''), '')
  t.equal(clientKey('not an address'), 'not an address')
})

t.test('ClientConnections admits up to the limit per client and forgets a client with none open', async t => {
  const open = new ClientConnections(2)
  t.equal(open.admit('a'), true)
  t.equal(open.admit('a'), true)
  t.equal(open.admit('a'), false, 'the third of the same client')
  t.equal(open.count('a'), 2, 'a refused connection is not counted')
  t.equal(open.admit('b'), true, 'another client is not affected')
  open.release('a')
  t.equal(open.count('a'), 1)
  t.equal(open.admit('a'), true, 'a closed connection frees a place')
  open.release('a')
  open.release('a')
  open.release('b')
  t.equal(open.clients, 0)
  open.release('never seen')
  t.equal(open.count('never seen'), 0)
})

t.test('the default total is 10,000, or the open-file limit less 100 when that is lower', async t => {
  t.equal(defaultMaxConnections(undefined), 10_000)
  t.equal(defaultMaxConnections(1024), 924)
  t.equal(defaultMaxConnections(1_048_576), 10_000)
  t.equal(defaultMaxConnections(50), 1)
})

t.test('openFileLimit reads the soft limit from /proc/self/limits', async t => {
  const limits = (soft: string) => () => [
    'Limit                     Soft Limit           Hard Limit           Units     ',
    'Max processes             63704                63704                processes ',
    `Max open files            ${soft.padEnd(21)}524288               files     `
  ].join('\n')
  t.equal(openFileLimit(limits('1024')), 1024)
  t.equal(openFileLimit(limits('unlimited')), undefined)
  t.equal(openFileLimit(() => { throw new Error('ENOENT') }), undefined, 'not Linux')
  const here = openFileLimit()
  t.ok(here === undefined || (Number.isSafeInteger(here) && here > 0), `this machine: ${here}`)
})
