// What the HTTP layer sees: sockets, connection limits, proxies, headers on the wire, probes, the drain, and fuzzing.
// Each file in test/http/ is a test file of its own (`npx tap test/http/<file>.ts` runs one); imported here, they
// share one test process, which saves each the ~3 CPU-s a process costs to start (docs/architecture.md).
import './http/client-address.js'
import './http/connection-attacks.js'
import './http/connections.js'
import './http/fuzz.js'
import './http/hardening.js'
import './http/health.js'
import './http/server.js'
import './http/shutdown.js'
import './http/store-shapes.js'
import './http/wire.js'
