// Test runs only (tap's node-arg in .taprc): the TypeScript loader of every test file and of every
// server process a test starts (they inherit the node arguments). Each is a fresh Node, and
// compiling the service's sources anew costs about 4 s of CPU, most of a small test file's time.
// Here each file's JavaScript is kept on disk, keyed by its path, its source and the compiler's
// version and options, and reused until the source changes; a file not yet kept is transpiled
// only, never type-checked (`npm run typecheck` does that), with its source map inline for
// coverage and stack traces. The sources import each other by their compiled names ('./store.js'),
// which the resolve hook maps to the .ts file beside them.
//
// It replaces tap's own TypeScript plugin (@tapjs/typescript, turned off in .taprc), whose ts-node
// cost about 0.7 s of CPU to load in every test process.
import { register } from 'node:module'

register('./transpile-cache-hooks.mjs', import.meta.url)
