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

/** Text made safe for an XML element or attribute. */
export function escapeXml (text: string): string {
  return text.replace(/[<>&"'\r]/g, c => ESCAPES[c] as string)
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

export function sessionXml (body: { xChallenger: string, xAuthToken: string, secretNote: string, challengeStatus: Record<string, boolean | undefined>, name?: string | undefined, hunt?: { defects: string, found: string[] } | undefined }): string {
  const statuses = Object.entries(body.challengeStatus)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([id, passed]) => `<challenge id="${escapeXml(id)}">${passed === true}</challenge>`)
  return `${DECLARATION}<challenger>${element('xChallenger', body.xChallenger)}${element('xAuthToken', body.xAuthToken)}` +
    `${element('secretNote', body.secretNote)}<challengeStatus>${statuses.join('')}</challengeStatus>` +
    `${body.name === undefined ? '' : element('name', body.name)}` +
    `${body.hunt === undefined ? '' : `<hunt>${element('defects', body.hunt.defects)}<found>${body.hunt.found.map(id => element('id', id)).join('')}</found></hunt>`}</challenger>`
}

/** A finding's answer. */
export function findingXml (body: { verdict: string, defect?: { id: string, name: string, breaks: string, why: string } | undefined, explanation?: string | undefined, found: number, hidden: number }): string {
  const defect = body.defect === undefined ? '' : `<defect>${element('id', body.defect.id)}${element('name', body.defect.name)}${element('breaks', body.defect.breaks)}${element('why', body.defect.why)}</defect>`
  return `${DECLARATION}<finding>${element('verdict', body.verdict)}${defect}${body.explanation === undefined ? '' : element('explanation', body.explanation)}` +
    `${element('found', String(body.found))}${element('hidden', String(body.hidden))}</finding>`
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

/** Why an XML body was refused: the message is for the learner. */
export class XmlError extends Error {
  override name = 'XmlError'
}

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
    if (point > 0x10ffff) throw new XmlError(`&#${dec ?? 'x' + hex}; is not a character`)
    return String.fromCodePoint(point)
  })
}

// Safe by configuration: no DOCTYPE at all (so no external entities and no entity expansion), at
// most 8 levels of nesting, every value kept as text exactly (no trimming, no numbers), attributes
// ignored. The size is bounded by the body limit before this runs.
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

/**
 * The note of `<secretnote><note>…</note></secretnote>`, as the JSON body would carry it:
 * `{ note }` where note is whatever the element held (text, or something else that validation then
 * refuses), or `{}` when there is no note element. Throws XmlError for anything that is not well-formed.
 */
export function readNoteXml (xml: string): { note?: unknown } {
  if (/<!DOCTYPE/i.test(xml)) throw new XmlError('A DOCTYPE is not allowed in the body')
  let parsed: unknown
  try {
    parsed = parser.parse(xml, true)
  } catch (error) {
    throw new XmlError(`The body is not well-formed XML: ${(error as Error).message}`)
  }
  const root = (parsed as Record<string, unknown>).secretnote
  if (typeof root !== 'object' || root === null || !('note' in root)) return {}
  return { note: (root as { note: unknown }).note }
}
