// The web pages and /docs: the OpenAPI document and Swagger UI's files.
// Each file in test/pages/ is a test file of its own (`npx tap test/pages/<file>.ts` runs one); imported here, they
// share one test process, which saves each the ~3 CPU-s a process costs to start (docs/architecture.md).
import './pages/docs.js'
import './pages/docs-buffers.js'
import './pages/medals.js'
import './pages/pages.js'
