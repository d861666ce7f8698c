// The request journal: its entries, near-miss hints, and replays.
// Each file in test/journal/ is a test file of its own (`npx tap test/journal/<file>.ts` runs one); imported here, they
// share one test process, which saves each the ~3 CPU-s a process costs to start (docs/architecture.md).
import './journal/journal.js'
import './journal/journal-entries.js'
import './journal/journal-replay.js'
import './journal/journal-replay-run.js'
import './journal/hints.js'
import './journal/hints-what-happened.js'
