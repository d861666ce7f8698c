// The class board: admin auth, names, counts, /metrics, and guessing limits.
// Each file in test/class/ is a test file of its own (`npx tap test/class/<file>.ts` runs one); imported here, they
// share one test process, which saves each the ~3 CPU-s a process costs to start (docs/architecture.md).
import './class/admin.js'
import './class/admin-guessing.js'
import './class/class-counts.js'
import './class/grades.js'
import './class/grades-loop.js'
import './class/metrics.js'
import './class/names.js'
import './class/token-guessing.js'
