// The grade command's command line: each option checked, with a clear word for each mistake, and
// the learner's test command after `--`, kept exactly as given (it is any runner's, and opaque).
import { nearest } from '../domain/config/misspelt.js'
import { checkDefectIds, defects } from '../domain/defects/catalogue.js'
import { DEFAULT_THRESHOLDS, type Thresholds } from './report.js'

/** The reports grade writes: clear-text on standard output, the others to files. */
export const REPORTERS = ['clear-text', 'json', 'html', 'junit'] as const
export type Reporter = typeof REPORTERS[number]

export interface GradeOptions {
  /** The test command: a program and its arguments, or one line for `sh -c`. */
  readonly command: readonly string[]
  /** The mutants to grade, in the catalogue's order. */
  readonly mutants: readonly string[]
  /** The reports to make, in REPORTERS' order. */
  readonly reporters: readonly Reporter[]
  /** --json: grade's own JSON on standard output, in place of clear-text. */
  readonly jsonToStdout: boolean
  /** Where the html, json and junit reports are written (mutation.html, mutation.json, junit.xml). */
  readonly reportDir: string
  /** --junit <file>: the JUnit report's file, in place of the report folder's. */
  readonly junit: string | undefined
  readonly timeoutSeconds: number
  readonly jobs: number
  /** Stryker's thresholds; --min-score sets break. */
  readonly thresholds: Thresholds
  /** --incremental: an earlier JSON report whose detected mutants are taken as they were. */
  readonly incremental: string | undefined
  /** Whether survivors are said with what is wrong and the exact check. */
  readonly explain: boolean
  readonly verbose: boolean
  /** The class server that grades, instead of a service of this process (server-run.ts). */
  readonly server?: string | undefined
}

export const DEFAULT_REPORT_DIR = 'reports/mutation'

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
time on a fresh service: a failing run (exit code not 0) kills the mutant, and grade says which of
your requests was answered otherwise than the correct service answered it; a passing run lets it
survive, or, when no request ever met the defect, leaves it not covered (NoCoverage), with what was
never sent. The score is Stryker's: detected (killed or timed out) over all but those that could
not run. Each mutant missed is named by its family and endpoint, with the kind of check that would
catch it; --explain says what is wrong and the exact check.

The command is any runner's (node --test, npx newman run, pytest, mvn test, bash a-curl-script.sh):
the words after -- are run as given, and a single word with spaces in it by sh -c. Its output is
kept to itself (see --verbose) but for the end of it when it fails against the correct service.

Options:
  --reporter <r,…>    the reports, any of clear-text (stdout), json, html, junit (files in
                      --report-dir, each named on stderr); default clear-text
  --report-dir <dir>  where the files go (default ${DEFAULT_REPORT_DIR}): mutation.json (the
                      mutation-testing-report-schema JSON), mutation.html (one file, works
                      offline), junit.xml
  --json              grade's own JSON on stdout in place of clear-text: the score, each mutant's
                      outcome, state and what caught it (the progress lines stay on stderr)
  --junit <file>      the junit reporter, into <file> rather than --report-dir
  --thresholds <h,l[,b]>  Stryker's: high (default 80) and low (60) colour the score; below break
                      (default none) the exit code is 1
  --min-score <p>     the same as a break threshold of <p> (kept from earlier versions)
  --incremental <f>   take the killed and timed-out mutants of the earlier JSON report <f> as they
                      were, while their defect is the same; run the others, and say what was reused
  --explain           say what is wrong with each mutant missed, and the exact check that catches it
  --timeout <s>       seconds a run may take (default ${DEFAULT_TIMEOUT_SECONDS}); a run past it is stopped with
                      every process it started, said on its line, and its mutant counts as
                      detected (Timeout), as Stryker counts it
  --jobs <n>          mutants graded at once, each on its own service (default 1)
  --only <id,…>       grade these mutants only
  --skip <id,…>       grade every mutant but these
  --verbose           show the command's output, on stderr, as it runs
  --server <url>      let the class server at <url> grade (POST /grades): no service starts here
  -h, --help          this text

Exit codes: 0 graded (at the break threshold or above); 1 graded, below it; 2 nothing graded: a
mistake on the command line, a command not found, or a suite that fails, times out or sends no
request against the correct service; 130 or 143 stopped by SIGINT or SIGTERM.

${wrap(`The mutants: ${defects.map(d => d.id).join(', ')}.`)}
`

type Kind = 'flag' | 'value'
const OPTIONS: Record<string, Kind> = {
  reporter: 'value',
  'report-dir': 'value',
  json: 'flag',
  junit: 'value',
  thresholds: 'value',
  incremental: 'value',
  explain: 'flag',
  timeout: 'value',
  jobs: 'value',
  only: 'value',
  skip: 'value',
  'min-score': 'value',
  verbose: 'flag',
  server: 'value',
  help: 'flag'
}
const PLACEHOLDER: Record<string, string> = { reporter: '<reporter,…>', 'report-dir': '<dir>', thresholds: '<high,low[,break]>', incremental: '<report.json>', junit: '<file>', timeout: '<seconds>', jobs: '<n>', only: '<id,…>', skip: '<id,…>', 'min-score': '<percent>', server: '<url>' }

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
  let thresholds = DEFAULT_THRESHOLDS
  const score = text('min-score')
  if (score !== undefined) {
    const digits = score.endsWith('%') ? score.slice(0, -1) : score
    const minScore = Number(digits)
    if (!NUMBER.test(digits) || minScore > 100) return { error: `--min-score must be a percentage from 0 to 100, got ${JSON.stringify(score)}` }
    thresholds = { ...thresholds, break: minScore }
  }
  const levels = text('thresholds')
  if (levels !== undefined) {
    if (score !== undefined) return { error: '--min-score and --thresholds\' break are the same threshold: give one of them' }
    const parsed = thresholdsOf(levels)
    if (typeof parsed === 'string') return { error: parsed }
    thresholds = parsed
  }
  const reporters = reportersOf(text('reporter'), given.has('junit'))
  if (typeof reporters === 'string') return { error: reporters }
  if (given.has('json') && reporters.includes('clear-text') && given.has('reporter')) {
    return { error: '--json puts its JSON on standard output, where clear-text goes: leave clear-text out of --reporter' }
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
      reporters: given.has('json') ? reporters.filter(r => r !== 'clear-text') : reporters,
      jsonToStdout: given.has('json'),
      reportDir: text('report-dir') ?? DEFAULT_REPORT_DIR,
      junit: text('junit'),
      timeoutSeconds,
      jobs,
      thresholds,
      incremental: text('incremental'),
      explain: given.has('explain'),
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

/** --thresholds high,low[,break]: whole percentages, high at least low; break any percentage. */
function thresholdsOf (text: string): Thresholds | string {
  const parts = text.split(',').map(part => part.trim())
  const wrong = `--thresholds must be high,low or high,low,break: percentages from 0 to 100, high and low whole and high not below low, got ${JSON.stringify(text)}`
  if (parts.length < 2 || parts.length > 3) return wrong
  const [high, low] = parts.slice(0, 2).map(part => /^\d+$/.test(part) ? Number(part) : NaN) as [number, number]
  const brk = parts[2] === undefined ? null : NUMBER.test(parts[2]) ? Number(parts[2]) : NaN
  if (!(high <= 100 && low <= high) || (brk !== null && !(brk <= 100))) return wrong
  return { high, low, break: brk }
}

/** The --reporter list in REPORTERS' order (--junit adds junit), or what is wrong with it. */
function reportersOf (list: string | undefined, junit: boolean): Reporter[] | string {
  const names = list === undefined ? ['clear-text'] : list.split(',').map(name => name.trim()).filter(name => name !== '')
  if (names.length === 0) return '--reporter needs at least one of clear-text, json, html, junit'
  for (const name of names) {
    if (!(REPORTERS as readonly string[]).includes(name)) {
      const guess = nearest(name, REPORTERS)
      return `--reporter: unknown reporter ${JSON.stringify(name)} (the reporters are ${REPORTERS.join(', ')})${guess === undefined ? '' : `; did you mean ${guess}?`}`
    }
  }
  if (junit) names.push('junit')
  return REPORTERS.filter(r => names.includes(r))
}
