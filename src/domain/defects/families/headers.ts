// The headers family: a header of the answer removed or changed (HTTPMutator's header operators).
import { isJson, UNCHANGED, type Defect } from '../defect.js'

const JSON_UTF8 = /^application\/json; *charset=utf-8$/i
const XML_UTF8 = /^((application|text)\/xml); *charset=utf-8$/i
const PROGRESS_PAGE = /^(.*\/gui\/challenges)\/[^/]+$/

export const headerDefects: Defect[] = [
  {
    id: 'no-challenger-echo',
    family: 'headers',
    severity: 'medium',
    source: 'HTTPMutator: header removed',
    endpoint: 'every answer to a request with X-CHALLENGER',
    untried: 'a request with X-CHALLENGER',
    name: 'X-CHALLENGER not echoed',
    breaks: 'Answers to a request with X-CHALLENGER no longer carry it back.',
    check: 'Assert the response headers too: that X-CHALLENGER comes back with the session id that was sent.',
    why: 'Headers are part of an API\'s contract as much as its body: a client that reads its session from the answer breaks.',
    hunt: true,
    answer (asked, answer) {
      if (answer.getHeader('x-challenger') === undefined || (asked.method === 'POST' && asked.resource === '/challenger')) return UNCHANGED
      answer.removeHeader('x-challenger')
      return { changed: true }
    }
  },
  {
    id: 'no-www-authenticate',
    family: 'headers',
    severity: 'medium',
    source: 'HTTPMutator: header removed',
    endpoint: 'POST /secret/token',
    untried: 'a refused Basic login (401)',
    name: 'WWW-Authenticate missing on 401',
    breaks: 'Wrong Basic credentials are answered 401 without a WWW-Authenticate header.',
    check: 'On a refused login, assert the challenge header (WWW-Authenticate) and its scheme, not just the status.',
    why: 'RFC 9110 requires it with every 401: clients and browsers use it to know how to log in.',
    hunt: true,
    answer (_asked, answer) {
      if (answer.statusCode !== 401 || answer.getHeader('www-authenticate') === undefined) return UNCHANGED
      answer.removeHeader('www-authenticate')
      return { changed: true }
    }
  },
  {
    id: 'login-challenge-bearer',
    family: 'headers',
    severity: 'medium',
    endpoint: 'POST /secret/token',
    untried: 'a refused Basic login (401)',
    name: 'A refused login asks for Bearer',
    breaks: 'Wrong Basic credentials are answered 401 with WWW-Authenticate: Bearer, instead of the Basic challenge and its realm.',
    check: 'On a refused login, assert the whole WWW-Authenticate value: its scheme and its realm.',
    why: 'The challenge tells a client how to log in: one that asks for a token where a password is wanted leaves the client no way in.',
    hunt: true,
    answer (asked, answer) {
      const challenge = answer.getHeader('www-authenticate')
      if (asked.resource !== '/secret/token' || answer.statusCode !== 401 || typeof challenge !== 'string' || !/^basic /i.test(challenge)) return UNCHANGED
      answer.header('www-authenticate', 'Bearer')
      return { changed: true }
    }
  },
  {
    id: 'json-as-text',
    family: 'headers',
    severity: 'medium',
    source: 'HTTPMutator: Content-Type changed',
    endpoint: 'every JSON answer',
    untried: 'a request answered with a JSON body',
    name: 'JSON answered as text/plain',
    breaks: 'JSON bodies come with Content-Type text/plain.',
    check: 'Assert the Content-Type of answers with a body, not just the body.',
    why: 'Clients choose their parser by Content-Type: a JSON body labelled text/plain is not parsed, or is rendered unescaped.',
    hunt: true,
    answer (_asked, answer) {
      if (!isJson(answer)) return UNCHANGED
      answer.header('content-type', 'text/plain; charset=utf-8')
      return { changed: true }
    }
  },
  {
    id: 'json-no-charset',
    family: 'headers',
    severity: 'low',
    source: 'HTTPMutator: charset removed from Content-Type',
    endpoint: 'every JSON answer',
    untried: 'a request answered with a JSON body',
    name: 'JSON answered without its charset',
    breaks: 'JSON bodies come with Content-Type application/json, without "; charset=utf-8".',
    check: 'Assert the whole Content-Type of a JSON answer, its charset included, not just that it contains "json".',
    why: 'Without a charset a client decodes the bytes with its own default, Latin-1 in many: a note with "é" comes out as "Ã©".',
    hunt: true,
    answer (_asked, answer) {
      if (!JSON_UTF8.test(String(answer.getHeader('content-type')))) return UNCHANGED
      answer.header('content-type', 'application/json')
      return { changed: true }
    }
  },
  {
    id: 'xml-charset-latin1',
    family: 'headers',
    severity: 'medium',
    source: 'HTTPMutator: charset changed in Content-Type',
    endpoint: 'every XML answer',
    untried: 'a request answered in XML (Accept: application/xml)',
    name: 'XML labelled ISO-8859-1',
    breaks: 'XML answers say charset=iso-8859-1 in their Content-Type, though their bytes are UTF-8.',
    check: 'Assert the whole Content-Type of an XML answer, its charset included.',
    why: 'A client that trusts the label decodes UTF-8 bytes as Latin-1: every character outside ASCII comes out wrong.',
    hunt: true,
    answer (_asked, answer) {
      const xml = XML_UTF8.exec(String(answer.getHeader('content-type')))
      if (xml === null) return UNCHANGED
      answer.header('content-type', `${xml[1] as string}; charset=iso-8859-1`)
      return { changed: true }
    }
  },
  {
    id: 'error-no-content-type',
    family: 'headers',
    severity: 'low',
    source: 'HTTPMutator: Content-Type removed',
    endpoint: 'every error answer with a JSON body',
    untried: 'a request refused with an error body (4xx)',
    name: 'Errors answered without Content-Type',
    breaks: 'The JSON body of an error (401, 403, 404, …) comes without a Content-Type header.',
    check: 'Assert the Content-Type of the refusals too, not only of the successes.',
    why: 'Without it a client must guess how to read the error: many give up and say "unknown error", and a browser may sniff it as HTML.',
    hunt: true,
    answer (_asked, answer) {
      if (answer.statusCode < 400 || !isJson(answer)) return UNCHANGED
      answer.removeHeader('content-type')
      return { changed: true }
    }
  },
  {
    id: 'location-no-session',
    family: 'headers',
    severity: 'medium',
    source: 'HTTPMutator: Location changed',
    endpoint: 'POST /challenger',
    untried: 'a POST /challenger',
    name: 'Location of POST /challenger loses the session id',
    breaks: 'POST /challenger answers Location: /gui/challenges, without the session\'s id: a progress page that is no one\'s.',
    check: 'Assert the Location of creating (or checking) a session: its exact value, the session id included.',
    why: 'A client that follows Location goes where the answer says: a wrong one sends it to another resource, or to nothing.',
    hunt: true,
    answer (asked, answer) {
      const page = PROGRESS_PAGE.exec(String(answer.getHeader('location')))
      if (asked.method !== 'POST' || asked.resource !== '/challenger' || page === null) return UNCHANGED
      answer.header('location', page[1] as string)
      return { changed: true }
    }
  }
]
