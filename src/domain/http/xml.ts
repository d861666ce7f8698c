// XML forms of the service's bodies, and the reader for a note sent as XML. Plain text in and out;
// nothing here knows about HTTP. The shapes follow the reference:
//   <secretnote><note>…</note></secretnote>
//   <errorMessages><errorMessage>…</errorMessage></errorMessages>
//   <challenges><challenge><id>25</id><name>…</name><description>…</description><status>false</status></challenge>…</challenges>
//     (with ?hints=true, <hint>…</hint> after <status> in each)
//   <requests><request><id>…</id><at>…</at><method>…</method><path>…</path><query>…</query><status>401</status><token>missing</token>
//     <contentType>…</contentType><passed><id>35</id></passed><hint>…</hint><accept>…</accept><override>…</override>
//     <authorization>…</authorization><body>…</body><challengerHeader>false</challengerHeader></request>…</requests>
//   <challenger><xChallenger>…</xChallenger><xAuthToken>…</xAuthToken><secretNote>…</secretNote>
//     <challengeStatus><challenge id="01">true</challenge>…</challengeStatus></challenger>
import type { Static } from '@sinclair/typebox'
import { XMLParser } from 'fast-xml-parser'
import { RequestView } from './schemas.js'

// A carriage return is written as a reference: a parser turns a literal one (or CR LF) into LF.
const ESCAPES: Record<string, string> = { '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;', '\r': '&#13;' }

/** A character XML 1.0 cannot carry, even as a reference: C0 controls but tab and line breaks, U+FFFE, U+FFFF, lone surrogates. */
const UNFIT = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u

/** Text made safe for an XML element or attribute; a character XML cannot carry becomes U+FFFD, so every answer is well-formed. */
export function escapeXml (text: string): string {
  return text.replace(/[<>&"'\r]|[^\t\n\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, c => ESCAPES[c] ?? '\uFFFD')
}

/** The first character of `text` that XML 1.0 cannot carry, as U+XXXX with its position (1-based, in characters), or undefined. */
export function unfitForXml (text: string): string | undefined {
  const found = UNFIT.exec(text)
  if (found === null) return undefined
  const point = (found[0].codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')
  return `U+${point} at character ${[...text.slice(0, found.index)].length + 1}`
}

/** Why a note cannot be stored, when it holds a character XML cannot carry (every note must answer as XML too). */
export function noteUnfitForXml (note: string): string | undefined {
  const unfit = unfitForXml(note)
  return unfit === undefined ? undefined : `The note holds a character XML cannot carry (${unfit}): control characters other than tab and line breaks, U+FFFE, U+FFFF and lone surrogates are refused`
}

function element (name: string, text: string): string {
  return text === '' ? `<${name}/>` : `<${name}>${escapeXml(text)}</${name}>`
}

const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>'

export function noteXml (body: { note: string }): string {
  return `${DECLARATION}<secretnote>${element('note', body.note)}</secretnote>`
}

export function errorsXml (body: { errorMessages: string[] }): string {
  return `${DECLARATION}<errorMessages>${body.errorMessages.map(m => element('errorMessage', m)).join('')}</errorMessages>`
}

/** The challenges; a `hint` element, after status, only for an item that has one (?hints=true). */
export function challengesXml (body: { challenges: Array<{ id: number, name: string, description: string, status: boolean, hint?: string | undefined }> }): string {
  const items = body.challenges.map(c =>
    `<challenge><id>${c.id}</id>${element('name', c.name)}${element('description', c.description)}<status>${c.status}</status>` +
    `${c.hint === undefined ? '' : element('hint', c.hint)}</challenge>`)
  return `${DECLARATION}<challenges>${items.join('')}</challenges>`
}

export function sessionXml (body: { xChallenger: string, xAuthToken: string, secretNote: string, challengeStatus: Record<string, boolean | undefined>, name?: string | undefined, hunt?: { hidden: number, found: string[], complete: boolean } | undefined }): string {
  const statuses = Object.entries(body.challengeStatus)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([id, passed]) => `<challenge id="${escapeXml(id)}">${passed === true}</challenge>`)
  return `${DECLARATION}<challenger>${element('xChallenger', body.xChallenger)}${element('xAuthToken', body.xAuthToken)}` +
    `${element('secretNote', body.secretNote)}<challengeStatus>${statuses.join('')}</challengeStatus>` +
    `${body.name === undefined ? '' : element('name', body.name)}` +
    `${body.hunt === undefined ? '' : `<hunt>${element('hidden', String(body.hunt.hidden))}<found>${body.hunt.found.map(id => element('id', id)).join('')}</found>${element('complete', String(body.hunt.complete))}</hunt>`}</challenger>`
}

/** A finding's answer. */
export function findingXml (body: { verdict: string, defect?: { id: string, name: string, breaks: string, why: string } | undefined, explanation?: string | undefined, found: number, hidden: number, complete: boolean }): string {
  const defect = body.defect === undefined ? '' : `<defect>${element('id', body.defect.id)}${element('name', body.defect.name)}${element('breaks', body.defect.breaks)}${element('why', body.defect.why)}</defect>`
  return `${DECLARATION}<finding>${element('verdict', body.verdict)}${defect}${body.explanation === undefined ? '' : element('explanation', body.explanation)}` +
    `${element('found', String(body.found))}${element('hidden', String(body.hidden))}${element('complete', String(body.complete))}</finding>`
}

/** A journal: an element per field of RequestView, in its order; a null or absent one is left out, `passed` as its ids. */
export function requestsXml (body: { requests: Array<Static<typeof RequestView>> }): string {
  const fields = Object.keys(RequestView.properties) as Array<keyof Static<typeof RequestView>>
  const field = (name: string, value: string | number | boolean | number[] | null | undefined): string => {
    if (value === null || value === undefined) return ''
    if (!Array.isArray(value)) return element(name, String(value))
    return value.length === 0 ? `<${name}/>` : `<${name}>${value.map(id => `<id>${id}</id>`).join('')}</${name}>`
  }
  return `${DECLARATION}<requests>${body.requests.map(r => `<request>${fields.map(name => field(name, r[name])).join('')}</request>`).join('')}</requests>`
}

/** Why an XML body was refused: a short message for the learner that never repeats the body at length. */
export class XmlError extends Error {
  override name = 'XmlError'
}

/** What an XML note body may hold: fit for a note of `noteMaxLength` characters, each written as a reference at worst. */
export interface XmlNoteLimits {
  bytes: number
  elements: number
  depth: number
}

/** The limits for notes of `noteMaxLength` characters: 2 KiB, or 16 bytes a character when that is more. */
export function xmlNoteLimits (noteMaxLength: number): XmlNoteLimits {
  return { bytes: Math.max(2048, 16 * noteMaxLength), elements: 8, depth: 4 }
}

const NOTE_LIMITS = xmlNoteLimits(100)

// An XML 1.0 character (the Char production), for references.
const isXmlChar = (point: number): boolean =>
  point === 0x9 || point === 0xa || point === 0xd || (point >= 0x20 && point <= 0xd7ff) || (point >= 0xe000 && point <= 0xfffd) || (point >= 0x10000 && point <= 0x10ffff)

// The five predefined entities and character references, decoded in one pass (so `&amp;lt;` stays `&lt;`).
const REFERENCE = /&(?:(lt)|(gt)|(amp)|(quot)|(apos)|#(\d{1,7})|#x([0-9a-fA-F]{1,6}));/g

function decode (text: string): string {
  return text.replace(REFERENCE, (_m, lt, gt, amp, quot, _apos, dec: string | undefined, hex: string | undefined) => {
    if (lt !== undefined) return '<'
    if (gt !== undefined) return '>'
    if (amp !== undefined) return '&'
    if (quot !== undefined) return '"'
    if (dec === undefined && hex === undefined) return "'"
    const point = dec === undefined ? parseInt(hex as string, 16) : parseInt(dec, 10)
    if (!isXmlChar(point)) throw new XmlError(`&#${dec ?? 'x' + hex}; is not a character XML allows`)
    return String.fromCodePoint(point)
  })
}

// Safe by configuration: no DOCTYPE at all (so no external entities and no entity expansion), every
// value kept as text exactly (no trimming, no numbers), attributes ignored. It reads only what
// `scan` let through: small, well-nested, one root.
const parser = new XMLParser({
  processEntities: false,
  tagValueProcessor: (_name, value) => decode(value),
  parseTagValue: false,
  trimValues: false,
  ignoreAttributes: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  maxNestedTags: 8
})

const notWellFormed = (why: string): XmlError => new XmlError(`The body is not well-formed XML: ${why}`)

// A start or end tag: a name that starts as XML's names do, attributes quoted (`<` never inside them).
const TAG = /<(\/?)([A-Za-z_:\u0080-\uffff][^\s/<>"'=]*)((?:\s+[^\s/<>"'=]+\s*=\s*(?:"[^"<]*"|'[^'<]*'))*)\s*(\/?)>/y

/** Skips from `at` past `end`, or refuses a construct left open. */
function past (xml: string, at: number, end: string, what: string): number {
  const found = xml.indexOf(end, at)
  if (found === -1) throw notWellFormed(`${what} is not closed`)
  return found + end.length
}

/**
 * The structure, checked before any parser sees the body, in one pass and with fixed messages: one
 * root, tags that match, no text outside it, and the limits counted on start tags, so that unclosed
 * tags are counted too.
 */
function scan (xml: string, limits: XmlNoteLimits): void {
  const open: string[] = []
  let elements = 0
  let rootDone = false
  let at = 0
  while (at < xml.length) {
    const lt = xml.indexOf('<', at)
    if (open.length === 0 && xml.slice(at, lt === -1 ? xml.length : lt).trim() !== '') throw notWellFormed('text outside the root element')
    if (lt === -1) break
    if (xml.startsWith('<?', lt)) at = past(xml, lt + 2, '?>', 'a declaration')
    else if (xml.startsWith('<!--', lt)) at = past(xml, lt + 4, '-->', 'a comment')
    else if (xml.startsWith('<![CDATA[', lt) && open.length > 0) at = past(xml, lt + 9, ']]>', 'a CDATA section')
    else {
      TAG.lastIndex = lt
      const tag = TAG.exec(xml)
      if (tag === null) throw notWellFormed('a tag is not a well-formed tag')
      const [, closing, name, attributes, empty] = tag as unknown as [string, string, string, string, string]
      if (closing === '/') {
        if (attributes !== '' || empty !== '' || open.pop() !== name) throw notWellFormed('an end tag does not match its start tag')
        rootDone = open.length === 0
      } else {
        if (rootDone) throw notWellFormed('more than one root element')
        if (++elements > limits.elements) throw new XmlError(`An XML note may hold at most ${limits.elements} elements`)
        if (open.length + 1 > limits.depth) throw new XmlError(`An XML note may nest elements at most ${limits.depth} deep`)
        if (empty === '') open.push(name)
        else rootDone = open.length === 0
      }
      at = TAG.lastIndex
    }
  }
  if (open.length > 0) throw notWellFormed('an element is not closed')
  if (!rootDone) throw notWellFormed('there is no root element')
}

/**
 * The note of `<secretnote><note>…</note></secretnote>`, as the JSON body would carry it:
 * `{ note }` where note is whatever the element held (text, or something else that validation then
 * refuses), or `{}` when there is no note element. Throws XmlError, with a short message, for a body
 * past `limits` or one that is not well-formed.
 */
export function readNoteXml (xml: string, limits: XmlNoteLimits = NOTE_LIMITS): { note?: unknown } {
  const bytes = Buffer.byteLength(xml)
  if (bytes > limits.bytes) throw new XmlError(`An XML note body may be at most ${limits.bytes} bytes; this one is ${bytes}`)
  if (/<!DOCTYPE/i.test(xml)) throw new XmlError('A DOCTYPE is not allowed in the body')
  const unfit = unfitForXml(xml)
  if (unfit !== undefined) throw new XmlError(`The body holds a character XML 1.0 does not allow: ${unfit}`)
  scan(xml, limits)
  let parsed: unknown
  try {
    parsed = parser.parse(xml, true)
  } catch (error) {
    if (error instanceof XmlError) throw error
    // The parser's own message may repeat the body (its open tags): not passed on.
    throw notWellFormed('the parser refused it')
  }
  const root = (parsed as Record<string, unknown>).secretnote
  if (typeof root !== 'object' || root === null || !('note' in root)) return {}
  return { note: (root as { note: unknown }).note }
}
