// The shape of the house (issue 36, item 8): no file of src/, plugins/ or routes/ over 400 lines,
// and no circle among their imports, so that each module can be read, and loaded, before the ones
// that use it; and no test file of a group that its group leaves out. Each check is tried first on a
// small made-up tree where it must fail.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const root = fileURLToPath(new URL('../..', import.meta.url))
const FLOORS = ['src', 'plugins', 'routes']
const MAX_LINES = 400

/** The .ts files under `dirs` of `base`, as paths relative to it, sorted. */
function sources (base: string, dirs: readonly string[]): string[] {
  return dirs.flatMap(dir => readdirSync(join(base, dir), { recursive: true, encoding: 'utf8' })
    .filter(file => file.endsWith('.ts'))
    .map(file => join(dir, file)))
    .sort()
}

/** Lines as `wc -l` counts them, and one more for a last line without its newline. */
function lineCount (text: string): number {
  const newlines = text.split('\n').length - 1
  return text.endsWith('\n') || text === '' ? newlines : newlines + 1
}

/** The files over `max` lines, with their counts. */
function tooLong (base: string, files: readonly string[], max: number): Array<[string, number]> {
  return files.map((file): [string, number] => [file, lineCount(readFileSync(join(base, file), 'utf8'))]).filter(([, lines]) => lines > max)
}

// Static imports and re-exports (`import … from './x.js'`, `export … from`, `import './x.js'`) and
// dynamic ones (`import('./x.js')`); type-only imports count too: a circle of types is still one
// that a reader has to hold in mind at once.
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g

/** The relative imports of each file, as files of the tree (a `.js` specifier is its `.ts` source). */
function importGraph (base: string, files: readonly string[]): Map<string, string[]> {
  const known = new Set(files)
  const graph = new Map<string, string[]>()
  for (const file of files) {
    const text = readFileSync(join(base, file), 'utf8')
    const targets = [...text.matchAll(IMPORT)]
      .map(match => match[1] ?? match[2] ?? match[3] as string)
      .filter(spec => spec.startsWith('.'))
      .map(spec => relative(base, resolve(base, dirname(file), spec)).replace(/\.js$/, '.ts'))
      .filter(target => known.has(target))
    graph.set(file, [...new Set(targets)])
  }
  return graph
}

/** A circle of imports, as the files along it back to the first, or null when there is none. */
function importCircle (graph: ReadonlyMap<string, readonly string[]>): string[] | null {
  const done = new Set<string>()
  const path: string[] = []
  const visit = (file: string): string[] | null => {
    const at = path.indexOf(file)
    if (at !== -1) return [...path.slice(at), file]
    if (done.has(file)) return null
    path.push(file)
    for (const next of graph.get(file) ?? []) {
      const circle = visit(next)
      if (circle !== null) return circle
    }
    path.pop()
    done.add(file)
    return null
  }
  for (const file of graph.keys()) {
    const circle = visit(file)
    if (circle !== null) return circle
  }
  return null
}

t.test('the checks fail where they should: on a made-up tree with a long file and a circle', async t => {
  const base = mkdtempSync(join(tmpdir(), 'house-'))
  t.teardown(() => { rmSync(base, { recursive: true, force: true }) })
  for (const dir of ['src/domain', 'plugins', 'routes']) mkdirSync(join(base, dir), { recursive: true })
  writeFileSync(join(base, 'src/domain/a.ts'), "import { b } from './b.js'\nexport const a = b\n")
  writeFileSync(join(base, 'src/domain/b.ts'), "export type { P } from '../../plugins/p.js'\nexport const b = 1\n")
  writeFileSync(join(base, 'plugins/p.ts'), "import type { a } from '../src/domain/a.js'\nexport type P = typeof a\n")
  writeFileSync(join(base, 'routes/r.ts'), "import '../src/domain/a.js'\nimport fp from 'fastify-plugin'\nawait import('../plugins/p.js')\n" + 'x\n'.repeat(MAX_LINES - 2))
  writeFileSync(join(base, 'routes/s.ts'), 'x\n'.repeat(MAX_LINES - 1) + 'x')
  writeFileSync(join(base, 'routes/u.ts'), 'x\n'.repeat(MAX_LINES) + 'x')
  const files = sources(base, FLOORS)
  t.same(files, ['plugins/p.ts', 'routes/r.ts', 'routes/s.ts', 'routes/u.ts', 'src/domain/a.ts', 'src/domain/b.ts'])
  t.same(tooLong(base, files, MAX_LINES), [['routes/r.ts', MAX_LINES + 1], ['routes/u.ts', MAX_LINES + 1]], 'one line over; a last line without its newline counts')
  const graph = importGraph(base, files)
  t.same(graph.get('routes/r.ts'), ['src/domain/a.ts', 'plugins/p.ts'], 'bare and dynamic imports; a package is not a file of the tree')
  t.same(importCircle(graph), ['plugins/p.ts', 'src/domain/a.ts', 'src/domain/b.ts', 'plugins/p.ts'], 'through a type import and a re-export')
  graph.set('plugins/p.ts', [])
  t.equal(importCircle(graph), null, 'broken in one place, there is none')
  t.equal(lineCount(''), 0)
})

t.test(`no file of src/, plugins/ or routes/ is over ${MAX_LINES} lines`, async t => {
  const files = sources(root, FLOORS)
  t.ok(files.length > 30, 'the tree is read')
  t.same(tooLong(root, files, MAX_LINES), [], 'each of these is to be split')
})

t.test('no circle among the imports of src/, plugins/ and routes/', async t => {
  const graph = importGraph(root, sources(root, FLOORS))
  t.ok(graph.get('src/app.ts')?.includes('routes/heartbeat.ts'), 'the imports are read')
  t.equal(importCircle(graph)?.join(' → ') ?? null, null)
})

/**
 * The files of test/'s groups that no test runs: a folder test/<group>/ holds test files that share one process, and
 * test/<group>.test.ts, the file tap runs, imports each of them.
 */
function unrun (base: string): string[] {
  const entries = readdirSync(join(base, 'test'), { withFileTypes: true })
  const names = new Set(entries.map(entry => entry.name))
  return entries.filter(entry => entry.isDirectory() && names.has(`${entry.name}.test.ts`)).flatMap(({ name: group }) => {
    const runner = join('test', `${group}.test.ts`)
    const members = sources(base, [join('test', group)])
    const imported = importGraph(base, [runner, ...members]).get(runner) ?? []
    return members.filter(file => !imported.includes(file))
  })
}

t.test('every file of a test group runs: its group\'s test file imports it', async t => {
  const base = mkdtempSync(join(tmpdir(), 'house-'))
  t.teardown(() => { rmSync(base, { recursive: true, force: true }) })
  for (const dir of ['test/a', 'test/fixtures']) mkdirSync(join(base, dir), { recursive: true })
  writeFileSync(join(base, 'test/a.test.ts'), "import './a/one.js'\n")
  for (const file of ['test/a/one.ts', 'test/a/two.ts', 'test/fixtures/f.ts', 'test/b.test.ts']) writeFileSync(join(base, file), '')
  t.same(unrun(base), ['test/a/two.ts'], 'a file its group forgot; a folder with no group of that name is not one')
  t.same(unrun(root), [])
  t.ok(sources(root, ['test/routes']).length > 5, 'the groups are read')
})
