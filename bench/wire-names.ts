// What Title-Case header names cost an answer (issue 35): src/domain/http/wire.ts's wireHeaders on the
// headers of a typical JSON answer, against copying the same object, in one process on one core.
// `npm run build && taskset -c 0 node dist/bench/wire-names.js`
import { wireHeaders } from '../src/domain/http/wire.js'

const answer = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': '*',
  'access-control-allow-headers': '*',
  'x-content-type-options': 'nosniff',
  'x-challenger': '7a6a6c3e-0000-4000-8000-000000000000',
  'content-type': 'application/json; charset=utf-8',
  'content-length': '17'
}
const calls = 2_000_000
let sink = 0
for (let round = 1; round <= 5; round++) {
  const start = process.hrtime.bigint()
  for (let i = 0; i < calls; i++) sink += wireHeaders({ ...answer }).length
  const middle = process.hrtime.bigint()
  for (let i = 0; i < calls; i++) sink += Object.keys({ ...answer }).length
  const end = process.hrtime.bigint()
  const ns = Number((middle - start) - (end - middle)) / calls
  console.log(`round ${round}: ${ns.toFixed(0)} ns per answer of ${Object.keys(answer).length} headers`)
}
if (sink === 0) console.log('(nothing measured)')
