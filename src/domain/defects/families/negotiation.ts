// The negotiation family: which form a request is read in or answered in (Accept, Content-Type, the method override).
// A body's type is judged after the token: the defects that change it do so only for a request with its token.
import { header, NOTE, withOwnToken, type Defect } from '../defect.js'

/** The routes that answer 406 to an Accept they cannot meet. */
const NEGOTIATED = new Set([NOTE, '/challenges', '/challenger/:guid', '/challenger/:guid/requests', '/challenger/:guid/findings'])
/** The media type of a Content-Type, in lower case. */
const mediaType = (type: string): string => (type.split(';')[0] as string).trim().toLowerCase()
const XML_TYPES = new Set(['application/xml', 'text/xml'])

export const negotiationDefects: Defect[] = [
  {
    id: 'override-ignored',
    family: 'negotiation',
    severity: 'medium',
    endpoint: 'POST /heartbeat',
    untried: 'a POST /heartbeat with X-HTTP-Method-Override',
    name: 'X-HTTP-Method-Override ignored',
    breaks: 'POST /heartbeat with X-HTTP-Method-Override is answered as a plain POST.',
    check: 'Send POST /heartbeat with each method override the service takes, and assert each status.',
    why: 'Method overrides let clients behind proxies use other verbs: ignoring one silently turns a DELETE or PATCH into something else.',
    hunt: true,
    request (asked) {
      if (asked.method !== 'POST' || asked.resource !== '/heartbeat' || header(asked, 'x-http-method-override') === undefined) return false
      delete asked.headers['x-http-method-override']
      return true
    }
  },
  {
    id: 'xml-ignored',
    family: 'negotiation',
    severity: 'medium',
    endpoint: 'every answer with a body',
    untried: 'a request with Accept: application/xml only',
    name: 'An XML Accept answered with JSON',
    breaks: 'A request whose Accept asks for XML only is answered in JSON.',
    check: 'Ask for XML (Accept: application/xml) and assert the Content-Type and the body\'s form.',
    why: 'Content negotiation is a contract: a client that asked for XML and cannot read JSON breaks.',
    hunt: true,
    request (asked) {
      const accept = header(asked, 'accept')
      if (accept === undefined || !/(application|text)\/xml/i.test(accept) || /json|\*\/\*/i.test(accept)) return false
      asked.headers.accept = 'application/json'
      return true
    }
  },
  {
    id: 'not-acceptable-ignored',
    family: 'negotiation',
    severity: 'low',
    endpoint: 'the note, challenges and session routes',
    untried: 'a request whose Accept allows neither JSON nor XML (Accept: image/png)',
    name: 'An Accept the service cannot meet is answered in JSON',
    breaks: 'A request whose Accept allows neither JSON nor XML is answered as usual, in JSON, instead of 406 Not Acceptable.',
    check: 'Ask for a form the service does not offer (Accept: image/png) and assert the refusal\'s status.',
    why: 'A client that asked for a form it can read, and gets another, fails later and further from the cause than at a 406.',
    hunt: true,
    request (asked) {
      const accept = header(asked, 'accept')
      if (!NEGOTIATED.has(asked.resource) || accept === undefined || /json|xml|\*/i.test(accept)) return false
      delete asked.headers.accept
      return true
    }
  },
  {
    id: 'content-type-unchecked',
    family: 'negotiation',
    severity: 'medium',
    endpoint: 'POST /secret/note',
    untried: 'a POST /secret/note with a Content-Type other than JSON or XML (text/plain)',
    name: 'The note\'s Content-Type is not checked',
    breaks: 'POST /secret/note reads any body as JSON, whatever its Content-Type: text/plain is read as JSON (or refused 400 as bad JSON) instead of 415 Unsupported Media Type.',
    check: 'Send a note with a Content-Type the service does not take (text/plain) and assert the refusal\'s exact status.',
    why: 'A server that guesses the form of a body reads what it was never sent: the 415 tells the client its label is wrong.',
    hunt: true,
    request (asked) {
      const type = header(asked, 'content-type')
      if (asked.method !== 'POST' || asked.resource !== NOTE || type === undefined || !withOwnToken(asked)) return false
      if (/^application\/json$|^(application|text)\/xml$/.test(mediaType(type)) || !/^[\w.+-]+\/[\w.+-]+$/.test(mediaType(type))) return false
      asked.headers['content-type'] = 'application/json'
      return true
    }
  },
  {
    id: 'xml-body-refused',
    family: 'negotiation',
    severity: 'medium',
    endpoint: 'POST /secret/note',
    untried: 'a POST /secret/note with an XML body (Content-Type: application/xml)',
    name: 'An XML note is refused 415',
    breaks: 'POST /secret/note with an XML body (Content-Type application/xml or text/xml) is refused 415, though the service reads XML notes.',
    check: 'Write a note in XML, with its Content-Type, and assert it is taken (200) and kept.',
    why: 'Every form an API says it takes needs its own test: a suite that only sends JSON never sees the other reader break.',
    hunt: true,
    request (asked) {
      const type = header(asked, 'content-type')
      if (asked.method !== 'POST' || asked.resource !== NOTE || type === undefined || !XML_TYPES.has(mediaType(type)) || !withOwnToken(asked)) return false
      asked.headers['content-type'] = 'text/plain'
      return true
    }
  }
]
