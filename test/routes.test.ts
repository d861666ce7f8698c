// The API's routes, at both bases: answers, formats, sessions, expiry and XML.
// Each file in test/routes/ is a test file of its own (`npx tap test/routes/<file>.ts` runs one); imported here, they
// share one test process, which saves each the ~3 CPU-s a process costs to start (docs/architecture.md).
import './routes/api-base.js'
import './routes/auth-headers.js'
import './routes/challenger.js'
import './routes/challenges-shape.js'
import './routes/expired.js'
import './routes/formats.js'
import './routes/heartbeat.js'
import './routes/restore-challenges.js'
import './routes/secret.js'
import './routes/sessions.js'
import './routes/xml-answers.js'
import './routes/xml-note.js'
