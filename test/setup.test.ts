// How the service is set up and started: environment, plugin options, embedding, the start-up message, the docs' links and the house's shape.
// Each file in test/setup/ is a test file of its own (`npx tap test/setup/<file>.ts` runs one); imported here, they
// share one test process, which saves each the ~3 CPU-s a process costs to start (docs/architecture.md).
import './setup/config.js'
import './setup/docs-links.js'
import './setup/embed.js'
import './setup/hooks.js'
import './setup/house.js'
import './setup/options.js'
import './setup/startup.js'
