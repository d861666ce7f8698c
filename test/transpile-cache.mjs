// Test runs only (tap's node-arg in .taprc): each test file and each server process a test starts
// is a fresh Node, and tap's ts-node compiles every TypeScript file it loads anew, about 4 s of CPU
// for the service's sources, most of a small test file's time. Here each file's JavaScript is kept
// on disk, keyed by its path, its source and the compiler's version and options, and reused until
// the source changes; a file not yet kept goes to TypeScript as ts-node would send it (transpile
// only, never type-checked: `npm run typecheck` does that), with its source map inline for
// coverage and stack traces.
import { register } from 'node:module'

register('./transpile-cache-hooks.mjs', import.meta.url)
