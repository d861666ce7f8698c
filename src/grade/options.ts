// The grade command's command line: each option checked, with a clear word for each mistake, and
// the learner's test command after `--`, kept exactly as given (it is any runner's, and opaque).
import { nearest } from '../domain/config/misspelt.js'
import { checkDefectIds, defects } from '../domain/defects/catalogue.js'

export interface GradeOptions {
  /** The test command: a program and its arguments, or one line for `sh -c`. */
  readonly command: readonly string[]
  /** The mutants to grade, in the catalogue's order. */
  readonly mutants: readonly string[]
  readonly json: boolean
  readonly junit: string | undefined
  readonly timeoutSeconds: number
  readonly jobs: number
  /** The percentage of mutants to catch for exit code 0. */
  readonly minScore: number
  readonly verbose: boolean
  /** The class server that grades, instead of a service of this process (server-run.ts). */
  readonly server?: string | undefined
}

export const DEFAULT_TIMEOUT_SECONDS = 60
const MAX_TIMEOUT_SECONDS = 86_400
const MAX_JOBS = 64

/** `text` in lines of at most 100 characters, broken between words. */
function wrap (text: string): string {
  const lines = ['']
  for (const word of text.split(' ')) {
    const last = lines.length - 1
    if (lines[last] === '') lines[last] = word
    else if ((lines[last] as string).length + word.length < 100) lines[last] += ` ${word}`
    else lines.push(word)
  }
  return lines.join('\n')
}

export const USAGE = `Usage: api-challenges-fastify grade [options] -- <your test command…>
       npm run --silent grade -- [options] -- <your test command…>     (in a clone)

Grades a test suite by the bugs it catches. The service starts on a free loopback port, and your
command runs with API_BASE_URL and BASE_URL set to it (http://127.0.0.1:<port>). The suite must
pass against the correct service first; then it runs once per deliberate defect (mutant), each
time on a fresh service: a failing run (exit code not 0) catches the mutant, a passing run lets it
survive. The score is the mutants caught; for each one missed, what was wrong and the kind of
check that would catch it.

The command is any runner's (node --test, npx newman run, pytest, mvn test, bash a-curl-script.sh):
the words after -- are run as given, and a single word with spaces in it by sh -c. Its output is
kept to itself (see --verbose) but for the end of it when it fails against the correct service.

Options:
  --json              the result as JSON on stdout (the progress lines stay on stderr)
  --junit <file>      also write a JUnit XML report: a test case per mutant, each missed a failure
  --timeout <s>       seconds a run may take (default ${DEFAULT_TIMEOUT_SECONDS}); a run past it is stopped with every
                      process it started, said on its line, and its mutant counts as not caught
  --jobs <n>          mutants graded at once, each on its own service (default 1)
  --only <id,…>       grade these mutants only
  --skip <id,…>       grade every mutant but these
  --min-score <p>     the percentage of mutants to catch for exit code 0 (default 0: any score)
  --verbose           show the command's output, on stderr, as it runs
  --server <url>      let the class server at <url> grade (POST /grades): no service starts here
  -h, --help          this text

Exit codes: 0 graded (at --min-score or above); 1 graded, below --min-score; 2 nothing graded: a
mistake on the command line, a command not found, or a suite that fails, times out or sends no
request against the correct service; 130 or 143 stopped by SIGINT or SIGTERM.

${wrap(`The mutants: ${defects.map(d => d.id).join(', ')}.`)}
`

type Kind = 'flag' | 'value'
const OPTIONS: Record<string, Kind> = {
  json: 'flag',
  junit: 'value',
  timeout: 'value',
  jobs: 'value',
  only: 'value',
  skip: 'value',
  'min-score': 'value',
  verbose: 'flag',
  server: 'value',
  help: 'flag'
}
const PLACEHOLDER: Record<string, string> = { junit: '<file>', timeout: '<seconds>', jobs: '<n>', only: '<id,…>', skip: '<id,…>', 'min-score': '<percent>', server: '<url>' }

export type Parsed = { help: true } | { error: string } | { options: GradeOptions }

const NUMBER = /^\d+(\.\d+)?$/

/** The options and command of `argv` (what follows `grade`), the usage asked for, or what is wrong. */
export function parseGradeArgs (argv: readonly string[]): Parsed {
  const given = new Map<string, string | true>()
  let i = 0
  for (; i < argv.length && argv[i] !== '--'; i++) {
    const arg = argv[i] as string
    if (arg === '-h') return { help: true }
    if (/^-[^-]/.test(arg)) return { error: `unknown option ${arg}` }
    if (!arg.startsWith('--')) {
      return { error: `${JSON.stringify(arg)} is not an option: put your test command after --, as in: grade [options] -- npm test` }
    }
    const equals = arg.indexOf('=')
    const name = arg.slice(2, equals === -1 ? undefined : equals)
    const kind = OPTIONS[name]
    if (kind === undefined) {
      const guess = nearest(name, Object.keys(OPTIONS))
      return { error: `unknown option --${name}${guess === undefined ? '' : `; did you mean --${guess}?`}` }
    }
    if (name === 'help') return { help: true }
    if (given.has(name)) return { error: `--${name} is given twice` }
    if (kind === 'flag') {
      if (equals !== -1) return { error: `--${name} takes no value` }
      given.set(name, true)
      continue
    }
    const value = equals === -1 ? argv[++i] : arg.slice(equals + 1)
    if (value === undefined || value === '' || value.startsWith('--')) return { error: `--${name} needs a value: --${name} ${PLACEHOLDER[name] as string}` }
    given.set(name, value)
  }
  const command = argv.slice(i + 1)
  if (command.length === 0 || command[0] === '') return { error: 'no test command: put it after --, as in: grade [options] -- npm test' }
  return options(given, command)
}

function options (given: ReadonlyMap<string, string | true>, command: readonly string[]): Parsed {
  const text = (name: string): string | undefined => given.get(name) as string | undefined
  let timeoutSeconds = DEFAULT_TIMEOUT_SECONDS
  const timeout = text('timeout')
  if (timeout !== undefined) {
    timeoutSeconds = Number(timeout)
    if (!NUMBER.test(timeout) || timeoutSeconds <= 0 || timeoutSeconds > MAX_TIMEOUT_SECONDS) {
      return { error: `--timeout must be a number of seconds above 0 and at most ${MAX_TIMEOUT_SECONDS}, got ${JSON.stringify(timeout)}` }
    }
  }
  let jobs = 1
  const jobsText = text('jobs')
  if (jobsText !== undefined) {
    jobs = Number(jobsText)
    if (!/^\d+$/.test(jobsText) || jobs < 1 || jobs > MAX_JOBS) return { error: `--jobs must be a whole number from 1 to ${MAX_JOBS}, got ${JSON.stringify(jobsText)}` }
  }
  let minScore = 0
  const score = text('min-score')
  if (score !== undefined) {
    const digits = score.endsWith('%') ? score.slice(0, -1) : score
    minScore = Number(digits)
    if (!NUMBER.test(digits) || minScore > 100) return { error: `--min-score must be a percentage from 0 to 100, got ${JSON.stringify(score)}` }
  }
  const only = idList(text('only'), 'only')
  if (typeof only === 'string') return { error: only }
  const skip = idList(text('skip'), 'skip')
  if (typeof skip === 'string') return { error: skip }
  const mutants = defects.map(d => d.id).filter(id => (only === undefined || only.includes(id)) && !(skip?.includes(id) ?? false))
  const server = text('server')
  if (server !== undefined && !/^https?:\/\/[^\s/]+/.test(server)) return { error: `--server must be an http:// or https:// URL, got ${JSON.stringify(server)}` }
  if (mutants.length === 0) return { error: `--skip leaves no mutant to grade (${only === undefined ? 'it names them all' : 'with --only'})` }
  return {
    options: {
      command,
      mutants,
      json: given.has('json'),
      junit: text('junit'),
      timeoutSeconds,
      jobs,
      minScore,
      verbose: given.has('verbose'),
      server
    }
  }
}

/** The ids of an --only or --skip list, or what is wrong with it. */
function idList (list: string | undefined, name: string): string[] | string | undefined {
  if (list === undefined) return undefined
  const ids = list.split(',').map(id => id.trim()).filter(id => id !== '')
  if (ids.length === 0) return `--${name} needs at least one mutant id`
  const wrong = checkDefectIds(ids)
  return wrong === undefined ? ids : `--${name}: ${wrong}`
}
