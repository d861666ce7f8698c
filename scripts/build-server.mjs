// npm start's build (and npm run grade's): the server's TypeScript compiled by tsc
// (tsconfig.server.json) and its other files (the Lua scripts) copied beside it, only when the
// sources differ from those of the last build. A hash of the sources and the compiler's settings,
// recorded in dist/ after a build, says which; deleting dist/ builds afresh. Run from the project's
// folder, as npm runs scripts; `--stderr` says what it does on stderr (grade's stdout is its report).
// A build says so as it begins, and every 5 s until tsc is done.
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

const SOURCES = ['src', 'plugins', 'routes']
// What else the build is made from: the compiler's settings, and the dependencies' versions (their types).
const SETTINGS = ['tsconfig.json', 'tsconfig.build.json', 'tsconfig.server.json', 'package-lock.json']
const RECORD = join('dist', '.server-sources')

const root = process.cwd()
const say = line => (process.argv.includes('--stderr') ? process.stderr : process.stdout).write(`${line}\n`)

// The source files, by path from the root, in a fixed order.
const files = SOURCES.filter(dir => existsSync(join(root, dir)))
  .flatMap(dir => readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter(entry => entry.isFile())
    .map(entry => join(entry.parentPath, entry.name).slice(root.length + 1)))
  .sort()
const output = file => join('dist', file.endsWith('.ts') ? file.replace(/\.ts$/, '.js') : file)

const hash = createHash('sha256')
for (const file of [...files, ...SETTINGS.filter(name => existsSync(join(root, name)))]) {
  hash.update(`${file}\0`).update(readFileSync(join(root, file))).update('\0')
}
const sources = hash.digest('hex')

const recorded = existsSync(join(root, RECORD)) ? readFileSync(join(root, RECORD), 'utf8') : undefined
if (recorded === sources && files.every(file => existsSync(join(root, output(file))))) {
  say('the build is current (dist/ was built from these very sources): no tsc')
} else {
  say('building the server (tsc)…')
  // tsc says nothing until it is done (from scratch, 8 to 16 s on two cores): a line every 5 s meanwhile.
  let ticks = 0
  const ticker = setInterval(() => {
    ticks += 1
    say(ticks === 1
      ? `… still compiling (${ticks * 5} s): tsc checks the types of src/, plugins/ and routes/, then writes dist/; from scratch that takes 8 to 16 s on two cores, and npm start skips it while nothing changes`
      : `… still compiling (${ticks * 5} s)`)
  }, 5000)
  const tsc = spawn(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.server.json'], { cwd: root, stdio: 'inherit' })
  const [status] = await once(tsc, 'close')
  clearInterval(ticker)
  if (status === 0) {
    for (const file of files.filter(name => !name.endsWith('.ts'))) {
      mkdirSync(dirname(join(root, output(file))), { recursive: true })
      copyFileSync(join(root, file), join(root, output(file)))
    }
    writeFileSync(join(root, RECORD), sources)
  } else process.exitCode = 1
}
