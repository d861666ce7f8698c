// A strict check that a text is well-formed XML 1.0: every character one XML can carry (the Char
// production), and elements that nest and close (fast-xml-parser's validator). Used on the service's answers.
import { XMLValidator } from 'fast-xml-parser'

const UNFIT = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u

/** True, or why the text is not well-formed XML. */
export function wellFormed (xml: string): true | string {
  const unfit = UNFIT.exec(xml)
  if (unfit !== null) return `U+${(unfit[0].codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')} at ${unfit.index}`
  const verdict = XMLValidator.validate(xml)
  return verdict === true ? true : verdict.err.msg
}
