// The docs hold together: every relative link in README.md and docs/*.md reaches a file that exists,
// and a #fragment a heading of that file (GitHub's slugs); every environment variable the server
// reads is in docs/operations.md's tables. The variables come from the source, not from a list here.
import t from 'tap'
import { existsSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { configFromEnv, SETTINGS } from '../../src/domain/config/config.js'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

/** The lines outside fenced code blocks: links and headings live there. */
function prose (markdown: string): string[] {
  const lines: string[] = []
  let fence: string | undefined
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(```|~~~)/.exec(line)?.[1]
    if (marker !== undefined && (fence === undefined || fence === marker)) {
      fence = fence === undefined ? marker : undefined
      continue
    }
    if (fence === undefined) lines.push(line)
  }
  return lines
}

/** GitHub's anchor for a heading (github-slugger): lower case, punctuation dropped, each space a hyphen; a repeat gets -1, -2, … */
function slugs (markdown: string): Set<string> {
  const seen = new Map<string, number>()
  const found = new Set<string>()
  for (const line of prose(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1]
    if (heading === undefined) continue
    const base = heading.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-')
    const times = seen.get(base) ?? 0
    seen.set(base, times + 1)
    found.add(times === 0 ? base : `${base}-${times}`)
  }
  return found
}

/** The targets of inline links ([text](target)) and of reference definitions ([label]: target), outside code. */
function links (markdown: string): string[] {
  const targets: string[] = []
  for (const line of prose(markdown).map(text => text.replace(/`[^`]*`/g, ''))) {
    for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(match[1] as string)
    const definition = /^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s.*)?$/.exec(line)?.[1]
    if (definition !== undefined) targets.push(definition)
  }
  return targets
}

/** What is wrong with each relative link of `file` (a path from the repository's root); [] when nothing is. */
async function brokenLinks (file: string, markdown: string): Promise<string[]> {
  const problems: string[] = []
  for (const target of links(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue // http:, https:, mailto: — not ours to check
    const [path = '', fragment] = target.split('#')
    const to = path === '' ? join(root, file) : resolve(dirname(join(root, file)), decodeURIComponent(path))
    if (!existsSync(to)) {
      problems.push(`${file}: ${target} (no file ${relative(root, to)})`)
      continue
    }
    if (fragment === undefined || fragment === '') continue
    if (!to.endsWith('.md')) {
      problems.push(`${file}: ${target} (a #fragment on a file that has no headings)`)
      continue
    }
    if (!slugs(await readFile(to, 'utf8')).has(decodeURIComponent(fragment))) {
      problems.push(`${file}: ${target} (no heading with that anchor in ${relative(root, to)})`)
    }
  }
  return problems
}

/** The files a directory holds, at any depth, that end with `ending`. */
async function filesUnder (dir: string, ending: string): Promise<string[]> {
  const entries = await readdir(join(root, dir), { withFileTypes: true, recursive: true })
  return entries.filter(entry => entry.isFile() && entry.name.endsWith(ending)).map(entry => relative(root, join(entry.parentPath, entry.name)))
}

/**
 * The environment variables the server's source reads: `process.env.NAME`, `env.NAME`, `env['NAME']`,
 * a reader that takes the environment and a name (`integer(env, 'PORT', …)`), and the settings'
 * table, which names each setting's variable (`env: 'PORT'`).
 */
function variablesIn (source: string): Set<string> {
  const names = new Set<string>()
  const pattern = /\benv(?:\.([A-Z][A-Z0-9_]*)\b|\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\]|\s*[,:]\s*['"]([A-Z][A-Z0-9_]*)['"])/g
  for (const match of source.matchAll(pattern)) names.add((match[1] ?? match[2] ?? match[3]) as string)
  return names
}

const docs = ['README.md', ...(await filesUnder('docs', '.md')).sort()]

t.test('the checks find what they are for: a missing file, a missing heading, a variable read in each way', async t => {
  t.same(await brokenLinks('README.md', '[a](docs/operations.md) [b](docs/no-such-file.md) [c](#no-such-heading) [d](https://example.org/x) `[f](nowhere.md)`\n```sh\n[e](nowhere.md)\n```\n'), [
    'README.md: docs/no-such-file.md (no file docs/no-such-file.md)',
    'README.md: #no-such-heading (no heading with that anchor in README.md)'
  ])
  t.same([...slugs('# Run a class\n## The board\'s API\n## `GET /admin` (200)\n## Run a class\n```sh\n# not a heading\n```\n')],
    ['run-a-class', 'the-boards-api', 'get-admin-200', 'run-a-class-1'])
  t.same([...variablesIn("process.env.PORT; env.ADMIN_TOKEN; env['HOST']; integer(env, 'MAX_SESSIONS', 1, 2); { env: 'MODE' }; environment.NOPE; env, x")],
    ['PORT', 'ADMIN_TOKEN', 'HOST', 'MAX_SESSIONS', 'MODE'])
})

t.test('every relative link in README.md and docs/*.md reaches a file, and its #fragment a heading there', async t => {
  t.ok(docs.includes('docs/operations.md'), 'docs/ is read')
  let checked = 0
  for (const file of docs) {
    const markdown = await readFile(join(root, file), 'utf8')
    checked += links(markdown).length
    t.same(await brokenLinks(file, markdown), [], file)
  }
  t.ok(checked > 20, `links checked: ${checked}`)
})

t.test('every environment variable the server reads is documented in a table of docs/operations.md', async t => {
  const sources = (await Promise.all(['src', 'plugins', 'routes'].map(dir => filesUnder(dir, '.ts')))).flat()
  const read = new Set<string>()
  for (const file of sources) for (const name of variablesIn(await readFile(join(root, file), 'utf8'))) read.add(name)

  // The pattern must see at least what the config reads when it is run (a new way of reading the
  // environment, missed by the pattern, fails here rather than leaving a variable unchecked).
  const asked = new Set<string>()
  configFromEnv(new Proxy({}, { get: (_, name) => { if (typeof name === 'string') asked.add(name) } }))
  t.ok(asked.size > 10, `the config read ${asked.size} variables`)
  t.same([...asked].filter(name => !read.has(name)), [], 'every variable the config reads is found in the source')

  t.same([...SETTINGS].sort(), [...read].sort(), 'SETTINGS (for the misspelt-name warning) is every variable read')
  const rows = (await readFile(join(root, 'docs/operations.md'), 'utf8')).split('\n').filter(line => line.startsWith('|'))
  for (const name of [...read].sort()) {
    t.ok(rows.some(row => row.includes(`\`${name}\``)), `${name} is in a table of docs/operations.md`)
  }
})

t.test('no shell block of the docs starts npm start twice: two instances build into one dist/ at once (build once, then node dist/src/server.js)', async t => {
  const twice = (markdown: string): string[] => [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)]
    .map(block => block[1] as string)
    .filter(block => block.split('\n').filter(line => /(^|[;&|]\s*|\s)npm start\b/.test(line.replace(/#.*/, ''))).length > 1)
  t.same(twice('```sh\nPORT=1 npm start\nPORT=2 npm start\n```\n'), ['PORT=1 npm start\nPORT=2 npm start\n'], 'found where it is')
  t.same(twice('```sh\nnpm start   # one\nnode dist/src/server.js\n```\n'), [])
  for (const file of docs) t.same(twice(await readFile(join(root, file), 'utf8')), [], file)
})
