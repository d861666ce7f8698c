// The plain modules without HTTP: the catalogue, options, the store and its capacity.
// Each file in test/modules/ is a test file of its own (`npx tap test/modules/<file>.ts` runs one); imported here, they
// share one test process, which saves each the ~3 CPU-s a process costs to start (docs/architecture.md).
import './modules/capacity.js'
import './modules/domain.js'
import './modules/last-ids.js'
import './modules/store.js'
