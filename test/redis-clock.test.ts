// The deadline a script that may write carries (src/domain/redis/clock.ts): Redis's clock as measured
// by the probes, moved earlier by what is not known exactly.
import t from 'tap'
import { GUARD_MS, RedisClock } from '../src/domain/redis/clock.js'

t.test('no deadline until a probe has measured the clock, and none after a new connection', async t => {
  let now = 1_000_000
  const clock = new RedisClock(() => now)
  t.equal(clock.deadline(1000), '')
  // Sent at 1000000, answered 10 ms later; Redis said 5001005 at about 1000005: Redis is 4001000 ahead.
  clock.measured(now, now + 10, 5_001_005)
  now += 10
  t.equal(clock.deadline(1000), String(1_000_010 + 4_001_000 + 1000 - 5 - GUARD_MS), 'our time, the offset and the timeout, less half the round trip and the guard')
  clock.forget()
  t.equal(clock.deadline(1000), '')
})

t.test('a measurement with a shorter round trip replaces the kept one at once, a longer one only once the kept one is 30 s old', async t => {
  let now = 0
  const clock = new RedisClock(() => now)
  clock.measured(0, 20, 1010) // offset 1000, within 10
  clock.measured(100, 300, 1200 + 500) // offset 1500, within 100: worse, kept is fresh
  t.equal(clock.deadline(0), String(1000 - 10 - GUARD_MS))
  clock.measured(400, 404, 402 + 2000) // offset 2000, within 2: better
  t.equal(clock.deadline(0), String(2000 - 2 - GUARD_MS))
  now = 30_500
  clock.measured(30_404, 30_604, 30_504 + 3000) // worse, but the kept one is over 30 s old
  t.equal(clock.deadline(0), String(30_500 + 3000 - 100 - GUARD_MS))
})
