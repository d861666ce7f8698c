// The bug hunt: deliberate defects, the hunt over HTTP, and the grade command.
// Each file in test/hunt/ is a test file of its own (`npx tap test/hunt/<file>.ts` runs one); imported here, they
// share one test process, which saves each the ~3 CPU-s a process costs to start (docs/architecture.md).
import './hunt/defects.js'
import './hunt/grade.js'
import './hunt/grade-reports.js'
import './hunt/hunt.js'
