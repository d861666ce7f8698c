// What remembering the Title-Case header names buys an answer (src/domain/http/wire.ts): the names
// of a typical JSON answer through wireName (remembered) against titleCase (worked out each time),
// in one process on one core. `npm run build && taskset -c 0 node dist/bench/wire-names.js`
import { titleCase, wireName } from '../src/domain/http/wire.js'

const names = [
  'access-control-allow-origin',
  'access-control-expose-headers',
  'access-control-allow-headers',
  'x-content-type-options',
  'x-challenger',
  'content-type',
  'content-length'
]
const calls = 1_000_000
let sink = 0
/** Nanoseconds of CPU per answer of `spell` on every name. */
function perAnswer (spell: (name: string) => string): number {
  const start = process.cpuUsage()
  for (let i = 0; i < calls; i++) for (const name of names) sink += spell(name).length
  const { user, system } = process.cpuUsage(start)
  return (user + system) * 1000 / calls
}
for (let round = 1; round <= 5; round++) {
  const remembered = perAnswer(wireName)
  const each = perAnswer(titleCase)
  console.log(`round ${round}: ${remembered.toFixed(0)} ns remembered, ${each.toFixed(0)} ns worked out (CPU), per answer of ${names.length} headers`)
}
if (sink === 0) console.log('(nothing measured)')
