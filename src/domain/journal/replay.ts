// A session's journal as requests to send again (GET /challenger/{guid}/requests?format=curl or
// ?format=http): each entry as a curl command of a shell script, or as a request of a .http file (the
// format of VS Code's REST Client and JetBrains' HTTP Client), oldest first. The journal keeps kinds,
// never values (the token, credentials and notes): each is replayed with a placeholder that gets
// the same answer, and the token is a variable ($TOKEN, {{token}}), never the secret itself.
import type { JournalView } from './entry.js'
import { ELLIPSIS } from './texts.js'

export interface ReplayContext {
  /** Where the requests go: the origin the journal was read at, and the service's mount prefix. */
  base: string
  /** The mount prefix ('' at the root), which each entry's path starts with. */
  prefix: string
  /** The journal's session: its id in a path becomes the session variable. */
  guid: string
  /** The Basic username this server takes (the landing page shows it too). */
  username: string
  /** The Basic password when it is the documented default ("password"); null: a variable the learner sets. */
  password: string | null
  noteMaxLength: number
  bodyLimit: number
}

/** The variables a replay names: the server, the session, its token, and a password that is not the default. */
type Variable = 'BASE' | 'CHALLENGER' | 'TOKEN' | 'PASSWORD'
/** A text of literal parts and variables, rendered for a shell or for a .http file. */
type Part = string | { variable: Variable } | { repeat: number }
type Text = Part[]

/** What a body is sent as: a text, a saved session read first (a restore), or more bytes than the body limit. */
type Body = { text: Text } | { sessionAt: Text } | { tooLarge: number }

/** One request as both formats send it. */
interface Plan {
  method: string
  url: Text
  /** Basic credentials (curl's -u, a .http file's Authorization: Basic user password). */
  basic: [Text, Text] | null
  headers: Array<[string, Text]>
  body: Body | null
  /** Comment lines: what the journal saw, and what the replay cannot send as it was. */
  notes: string[]
}

const NOTE = 'replayed note'
const WRONG_TOKEN = 'not-the-token'
/** A body this long or shorter is written out; a longer one is made when the script runs. */
const INLINE_MAX = 4096

const variable = (name: Variable): Part => ({ variable: name })

/** Characters a request target may carry as they are; any other is percent-encoded (a cut text's "…" too). */
const URL_SAFE = /[A-Za-z0-9\-._~!$&'()*+,;=:@/%?]/

function urlText (text: string): string {
  // A request's target arrives as bytes, one character each (latin1); a character beyond them (a cut text's "…") as UTF-8.
  const bytes = (c: string): number[] => c.charCodeAt(0) <= 0xff ? [c.charCodeAt(0)] : [...Buffer.from(c)]
  return [...text].map(c => URL_SAFE.test(c) ? c : bytes(c).map(byte => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('')).join('')
}

/** A Content-Type the replay can send as kept: a media type's characters only, none cut. */
const MEDIA_TYPE = /^[!#$%&'*+.^_`|~0-9a-z-]+(?:\/[!#$%&'*+.^_`|~0-9a-z-]+)?$/

/** `text` with the session's id (in any case) as the session variable. */
function withSession (text: string, guid: string): Text {
  const parts: Text = []
  text.split(new RegExp(`(${guid})`, 'i')).forEach((piece, i) => {
    if (i % 2 === 1) parts.push(variable('CHALLENGER'))
    else if (piece !== '') parts.push(piece)
  })
  return parts
}

function isXml (contentType: string | null): boolean {
  return contentType === 'application/xml' || contentType === 'text/xml'
}

/** A note body of `note` (or `field` for a refused one), in the entry's format. */
function noteBody (contentType: string | null, note: Part, field = 'note'): Text {
  return isXml(contentType) ? [`<secretnote><${field}>`, note, `</${field}></secretnote>`] : [`{"${field}":"`, note, '"}']
}

/** The body that gets the answer this entry got, or null for none. */
function bodyOf (view: JournalView, resource: string, url: Text, context: ReplayContext, notes: string[]): Body | null {
  switch (view.body) {
    case undefined: return null
    case 'note': return { text: noteBody(view.contentType, NOTE) }
    case 'long-note': return { text: noteBody(view.contentType, { repeat: context.noteMaxLength + 1 }) }
    case 'refused': return { text: resource === '/secret/note' ? noteBody(view.contentType, NOTE, 'notes') : ['{"name":""}'] }
    case 'malformed': return { text: [isXml(view.contentType) ? '<secretnote><note>' : '{"note":'] }
    case 'too-large': return { tooLarge: context.bodyLimit + 1 }
    case 'other': return otherBody(view.method, resource, url, notes)
    default: return { text: ['replayed'] }
  }
}

/** A body the route took that was not a note: one of the same shape. */
function otherBody (method: string, resource: string, url: Text, notes: string[]): Body {
  if (method === 'PATCH' && resource === '/challenger/:guid') return { text: ['{"name":"Replayed"}'] }
  if (method === 'PUT' && resource === '/challenger/:guid') {
    // The session restored is not kept (it holds the token): the session as it is, when it is this one.
    if (url.some(part => typeof part === 'object' && 'variable' in part && part.variable === 'CHALLENGER')) return { sessionAt: url }
    notes.push('The session restored was not kept (it holds the token): {} stands in for it.')
    return { text: ['{}'] }
  }
  if (resource.endsWith('/findings')) {
    notes.push('A finding names an entry of its own session: <entry id> stands in for it.')
    return { text: ['{"entry":"<entry id>"}'] }
  }
  return { text: ['{}'] }
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i

/** An entry's path as its route names it: without the prefix (gone already) and the /api base, a session id as :guid. */
function resourceOf (path: string): string {
  return path.replace(/^\/api(?=\/)/, '').replace(UUID, ':guid')
}

/** What the journal saw of `view`, as a comment line. */
function sawLine (view: JournalView, n: number): string {
  const passed = view.passed.length === 0 ? 'passed nothing' : `passed ${view.passed.map(id => String(id).padStart(2, '0')).join(', ')}`
  return `${n}. entry ${view.id}, ${view.at.slice(11, 19)} UTC: ${view.method} ${view.path}${view.query === undefined ? '' : `?${view.query}`} answered ${view.status}, ${passed}${view.hint === null ? '' : `; ${view.hint}`}`
}

/** How to send `view` again. */
function planOf (view: JournalView, n: number, context: ReplayContext): Plan {
  const notes = [sawLine(view, n)]
  // Every path the service answers starts with its prefix.
  const path = view.path.slice(context.prefix.length)
  if (view.path.endsWith(ELLIPSIS) || view.query?.endsWith(ELLIPSIS) === true) notes.push('The journal kept this request\'s path or query cut short: the replay sends what it kept.')
  const target = urlText(view.query === undefined ? path : `${path}?${view.query}`)
  const url: Text = [variable('BASE'), ...withSession(target, context.guid)]
  const headers: Array<[string, Text]> = []
  if (view.status === 431) {
    // The session, then more than the 100 characters X-CHALLENGER may have: the 431 that passes challenge 47.
    notes.push('An X-CHALLENGER over 100 characters: the session id, then 65 x.')
    headers.push(['X-CHALLENGER', [variable('CHALLENGER'), 'x'.repeat(65)]])
  } else if (view.challengerHeader !== false) headers.push(['X-CHALLENGER', [variable('CHALLENGER')]])
  let basic: [Text, Text] | null = null
  const bearer = view.tokenSource === 'bearer' || view.authorization === 'bearer'
  if (bearer) headers.push(['Authorization', view.token === 'wrong' ? [`Bearer ${WRONG_TOKEN}`] : ['Bearer ', variable('TOKEN')]])
  else if (view.authorization === 'basic') basic = [[context.username], [context.password ?? variable('PASSWORD')]]
  else if (view.authorization === 'basic-wrong') basic = [['wrong'], ['wrong']]
  else if (view.authorization === 'token') headers.push(['Authorization', [variable('TOKEN')]])
  else if (view.authorization === 'other') headers.push(['Authorization', ['Digest replayed']])
  if (view.tokenSource === 'x-auth-token') headers.push(['X-AUTH-TOKEN', view.token === 'wrong' ? [WRONG_TOKEN] : [variable('TOKEN')]])
  if (view.override !== undefined) headers.push(['X-HTTP-Method-Override', [view.override]])
  if (view.accept !== undefined) headers.push(['Accept', [view.accept === 'other' ? 'text/plain' : view.accept]])
  let contentType = view.contentType
  if (contentType !== null && !MEDIA_TYPE.test(contentType)) {
    notes.push('The journal kept this request\'s Content-Type cut short: text/plain stands in for it.')
    contentType = 'text/plain'
  }
  if (contentType !== null) headers.push(['Content-Type', [contentType]])
  const body = view.method === 'HEAD' ? null : bodyOf({ ...view, contentType }, resourceOf(path), url, context, notes)
  return { method: view.method, url, basic, headers, body, notes }
}

function plans (views: readonly JournalView[], context: ReplayContext): Plan[] {
  return [...views].reverse().map((view, i) => planOf(view, i + 1, context))
}

/** Whether any request of `all` names `name`. */
function uses (all: readonly Plan[], name: Variable): boolean {
  const inText = (text: Text): boolean => text.some(part => typeof part === 'object' && 'variable' in part && part.variable === name)
  return all.some(plan => [plan.url, ...plan.headers.map(([, value]) => value), ...(plan.basic ?? [])].some(inText))
}

/** A comment line: one line, control characters out. */
function comment (text: string, mark = '#'): string {
  return `${mark} ${text.replace(/\p{Cc}/gu, ' ')}`
}

// ---- curl ----

function singleQuoted (text: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`
}

/** A server's address that can stand in a shell's `${BASE:-…}` inside double quotes as it is. */
const PLAIN_BASE = /^[A-Za-z0-9_.:/[\]@%+,~-]+$/

/**
 * How a command names a variable: each line works pasted alone into a terminal too (issue 58), where
 * the walk-through's CH and TOKEN are set and BASE and CHALLENGER are not: this server, and $CH.
 */
function variableWord (name: Variable, base: string): string {
  /* eslint-disable no-template-curly-in-string -- shell, whose ${…} is its own */
  if (name === 'BASE') return PLAIN_BASE.test(base) ? `\${BASE:-${base}}` : '${BASE}'
  if (name === 'CHALLENGER') return '${CHALLENGER:-$CH}'
  /* eslint-enable no-template-curly-in-string */
  return `$${name}`
}

/** `text` as one shell word: in double quotes when its variables need them, else single. */
function shellWordAt (text: Text, base = ''): string {
  const rendered = (part: Part): string | null => {
    if (typeof part === 'string') return /[$`"\\!]/.test(part) ? null : part
    if ('repeat' in part) return `$(printf '%*s' ${part.repeat} '' | tr ' ' x)`
    return variableWord(part.variable, base)
  }
  // A repeat short enough is written out, and joined to the literals beside it.
  text = text.map(part => typeof part === 'object' && 'repeat' in part && part.repeat <= INLINE_MAX ? 'x'.repeat(part.repeat) : part)
    .reduce<Text>((joined, part) => typeof part === 'string' && typeof joined.at(-1) === 'string' ? [...joined.slice(0, -1), `${joined.at(-1) as string}${part}`] : [...joined, part], [])
  if (text.every(part => typeof part === 'string')) return singleQuoted(text.join(''))
  const inDouble = text.map(rendered)
  if (inDouble.every(word => word !== null)) return `"${inDouble.join('')}"`
  // A literal a double quote would change ($, `, ", \, !): single-quoted beside the variables.
  return text.map((part, i) => typeof part === 'string' ? `'${part.replaceAll("'", "'\\''")}'` : `"${inDouble[i] as string}"`).join('')
}

/** A plan as one line of shell: curl silent but for errors, showing the answer's headers. */
function curlCommand (plan: Plan, base: string): string {
  const shellWord = (text: Text): string => shellWordAt(text, base)
  const words = ['curl', '-sS', '-i']
  if (plan.method === 'HEAD') words.push('-I')
  else if (plan.method !== 'GET' || plan.body !== null) words.push('-X', singleQuoted(plan.method))
  // Dot segments as sent: curl would resolve them.
  if (plan.url.some(part => typeof part === 'string' && /\/\.\.?(?:[/?]|$)/.test(part))) words.push('--path-as-is')
  words.push(shellWord(plan.url))
  if (plan.basic !== null) words.push('-u', shellWord([...plan.basic[0], ':', ...plan.basic[1]]))
  for (const [name, value] of plan.headers) words.push('-H', shellWord([`${name}: `, ...value]))
  const body = plan.body
  if (body === null) return words.join(' ')
  // Without a Content-Type of its own, curl would send a form's; a large body, Expect: 100-continue.
  if (!plan.headers.some(([name]) => name === 'Content-Type')) words.push('-H', "'Content-Type:'")
  if ('tooLarge' in body) return `head -c ${body.tooLarge} /dev/zero | tr '\\0' x | ${words.join(' ')} -H 'Expect:' --data-binary @-`
  // A restore sends the session as it is, read first: the one restored is not kept (it holds the token).
  if ('sessionAt' in body) return `${words.join(' ')} --data-binary "$(curl -sS ${shellWord(body.sessionAt)})"`
  const long = body.text.some(part => typeof part === 'object' && 'repeat' in part && part.repeat > 1000)
  return `${words.join(' ')}${long ? " -H 'Expect:'" : ''} --data-raw ${shellWord(body.text)}`
}

/* eslint-disable no-template-curly-in-string -- shell, whose ${…} is its own */
const SETUP = [
  'if [ -z "${CHALLENGER:-}" ]; then',
  '  CHALLENGER=$(curl -sS -o /dev/null -D - -X POST "${BASE}/challenger" | tr -d \'\\r\' | awk \'tolower($1) == "x-challenger:" { print $2 }\')',
  'fi',
  '[ -n "$CHALLENGER" ] || { echo "No session: POST ${BASE}/challenger made none; set CHALLENGER to a session id" >&2; exit 1; }'
]
const TOKEN_SETUP = [
  'if [ -z "${TOKEN:-}" ]; then',
  '  TOKEN=$(curl -sS "${BASE}/challenger/${CHALLENGER}" | sed -n \'s/.*"xAuthToken":"\\([^"]*\\)".*/\\1/p\')',
  'fi',
  '[ -n "$TOKEN" ] || { echo "No token: is ${CHALLENGER} a live session at ${BASE}? Set TOKEN to its token" >&2; exit 1; }'
]
const PASSWORD_SETUP = '[ -n "${PASSWORD:-}" ] || { echo "Set PASSWORD to the password of POST /secret/token (the journal never keeps it)" >&2; exit 1; }'
/* eslint-enable no-template-curly-in-string */

/** The journal (newest first, as GET …/requests lists it) as a shell script of curl commands, oldest first. */
export function curlScript (views: readonly JournalView[], context: ReplayContext): string {
  const all = plans(views, context)
  const lines = [
    '#!/bin/sh',
    comment(`The last ${all.length} requests of session ${context.guid}, oldest first, as curl commands (GET /challenger/{guid}/requests?format=curl).`),
    comment('Run it with sh or bash (curl needed). Each command\'s comment says what the server answered then. The journal keeps no'),
    comment('token, credentials or notes: the token is $TOKEN, and a note or a body is a placeholder that gets the same answer.'),
    comment('BASE: the server. CHALLENGER: the session the requests name; unset, POST /challenger makes a new one.'),
    comment('TOKEN: its token; unset, read from GET /challenger/$CHALLENGER (xAuthToken). Set them to replay elsewhere:'),
    comment('  BASE=http://… CHALLENGER=<session id> TOKEN=<its token> sh requests.sh'),
    `BASE=\${BASE:-${singleQuoted(context.base)}}`
  ]
  if (all.length === 0) return [...lines, comment('No requests in the journal yet.'), ''].join('\n')
  // The password first: nothing is sent before the script has all it needs.
  if (uses(all, 'PASSWORD')) lines.push(PASSWORD_SETUP)
  lines.push(...SETUP)
  if (uses(all, 'TOKEN')) lines.push(...TOKEN_SETUP)
  for (const plan of all) {
    const restore = plan.body !== null && 'sessionAt' in plan.body ? ['The session restored was not kept (it holds the token): this sends the session as it is, read first.'] : []
    lines.push('', ...[...plan.notes, ...restore].map(note => comment(note)), curlCommand(plan, context.base), 'echo')
  }
  return lines.join('\n') + '\n'
}

// ---- .http ----

function httpText (text: Text): string {
  return text.map(part => typeof part === 'string' ? part : 'repeat' in part ? 'x'.repeat(part.repeat) : `{{${part.variable.toLowerCase()}}}`).join('')
}

/** A request of a .http file: its comments, request line, headers and body (a file's name for one over the body limit). */
function httpRequest (plan: Plan): string[] {
  const body = plan.body
  const notes = [...plan.notes]
  let text: string[] = []
  if (body !== null && 'tooLarge' in body) {
    notes.push(`More than the body limit: make the file beside this one with head -c ${body.tooLarge} /dev/zero | tr '\\0' x > too-large.txt`)
    text = ['', '< ./too-large.txt']
  } else if (body !== null && 'sessionAt' in body) {
    notes.push('The session restored was not kept (it holds the token): paste your saved one (GET /challenger/{guid}) in place of {}, which empties it.')
    text = ['', '{}']
  } else if (body !== null) {
    text = ['', httpText(body.text)]
  }
  const lines = [...notes.map(note => comment(note)), `${plan.method} ${httpText(plan.url)}`]
  if (plan.basic !== null) lines.push(`Authorization: Basic ${httpText(plan.basic[0])} ${httpText(plan.basic[1])}`)
  for (const [name, value] of plan.headers) lines.push(`${name}: ${httpText(value)}`)
  return [...lines, ...text]
}

/** The journal (newest first) as a .http file, oldest first: VS Code's REST Client and JetBrains' HTTP Client send it. */
export function httpFile (views: readonly JournalView[], context: ReplayContext): string {
  const all = plans(views, context)
  const lines = [
    comment(`The last ${all.length} requests of session ${context.guid}, oldest first (GET /challenger/{guid}/requests?format=http),`),
    comment('for VS Code\'s REST Client or JetBrains\' HTTP Client: send them one by one. Each one\'s comment says what the'),
    comment('server answered then. The journal keeps no token, credentials or notes: set @token to your session\'s token,'),
    comment('the xAuthToken of GET {{base}}/challenger/{{challenger}}; a note or a body is a placeholder that gets the same answer.'),
    `@base = ${context.base}`,
    `@challenger = ${context.guid}`,
    '@token = <your token>'
  ]
  if (uses(all, 'PASSWORD')) lines.push('@password = <the password of POST /secret/token>')
  if (all.length === 0) lines.push('', comment('No requests in the journal yet.'))
  for (const plan of all) lines.push('', comment(plan.notes[0] as string, '###'), ...httpRequest({ ...plan, notes: plan.notes.slice(1) }))
  return lines.join('\n') + '\n'
}
