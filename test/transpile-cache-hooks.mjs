// The loader hooks of test/transpile-cache.mjs (see there why).
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const root = fileURLToPath(new URL('..', import.meta.url))
// Beside the dependencies: where the compiler comes from, and where npm ci starts afresh.
const dir = join(root, 'node_modules', '.cache', 'api-challenges-transpiled')
const typescript = require.resolve('typescript')
const version = JSON.parse(readFileSync(join(typescript, '..', '..', 'package.json'), 'utf8')).version
// What ts-node makes of tsconfig.json for an ES module, transpiling only.
const compilerOptions = {
  module: 'ESNext',
  target: 'ES2022',
  esModuleInterop: true,
  isolatedModules: true,
  sourceMap: false,
  inlineSourceMap: true,
  inlineSources: true
}
const salt = JSON.stringify({ version, compilerOptions })

let ts
function transpile (file, source) {
  ts ??= require(typescript)
  return ts.transpileModule(source, {
    fileName: file,
    reportDiagnostics: false,
    compilerOptions: {
      ...compilerOptions,
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022
    }
  }).outputText
}

export async function load (url, context, nextLoad) {
  if (!url.startsWith('file:') || !new URL(url).pathname.endsWith('.ts')) return await nextLoad(url, context)
  const file = fileURLToPath(url)
  const source = readFileSync(file, 'utf8')
  // Keyed by the path from the project's root, not the whole path: the output names the file only
  // (its source map's "sources"), so a copy of the project (test/add-challenge.test.ts makes one,
  // with node_modules linked) reuses what the project kept, for every file it did not change.
  const kept = join(dir, createHash('sha256').update(salt).update('\0').update(relative(root, file)).update('\0').update(source).digest('hex') + '.js')
  let output
  try {
    output = readFileSync(kept, 'utf8')
  } catch {
    output = transpile(file, source)
    // Written whole, then renamed: test files run side by side, and a reader never sees half a file.
    mkdirSync(dir, { recursive: true })
    const partial = `${kept}.${process.pid}.${Math.random().toString(36).slice(2)}`
    writeFileSync(partial, output)
    renameSync(partial, kept)
  }
  return { format: 'module', source: output, shortCircuit: true }
}

// The sources import each other by their compiled names ('./store.js'), and so does t.mockImport
// (with the whole address): where no such file is, here that is the .ts file beside it (never in
// node_modules). The name goes first to the hooks after this one as it was written: tap's mocks
// know a module by it.
export async function resolve (specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context)
  } catch (error) {
    const url = error?.code === 'ERR_MODULE_NOT_FOUND' && /^(\.\.?\/|file:)/.test(specifier) && context.parentURL?.startsWith('file:')
      ? new URL(specifier, context.parentURL)
      : null
    if (url === null || !url.pathname.endsWith('.js') || url.pathname.includes('/node_modules/')) throw error
    url.pathname = url.pathname.slice(0, -3) + '.ts'
    return await nextResolve(url.href, context)
  }
}
