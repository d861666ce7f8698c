// The status family: an answer's status code swapped for another (HTTPMutator's status operators).
import { NOTE, status, UNCHANGED, type Defect } from '../defect.js'

export const statusDefects: Defect[] = [
  {
    id: 'swap-401-403',
    family: 'status',
    severity: 'high',
    source: 'HTTPMutator: status code 4XX replaced by another 4XX',
    endpoint: 'GET /secret/note',
    untried: 'a GET /secret/note refused for no token and for a wrong one',
    name: '401 and 403 swapped on GET /secret/note',
    breaks: 'Reading the note without a token is answered 403, and with a wrong token 401: the two refusals are exchanged.',
    check: 'Read the note once with no token and once with a wrong one, and assert each refusal\'s exact status, not just "4xx".',
    why: '401 says "who are you?" and 403 "you may not": a client that retries its login on 401 loops, or gives up, on the wrong one.',
    hunt: true,
    answer (asked, answer) {
      if (asked.method !== 'GET' || asked.resource !== NOTE || (answer.statusCode !== 401 && answer.statusCode !== 403)) return UNCHANGED
      answer.code(answer.statusCode === 401 ? 403 : 401)
      return { changed: true }
    }
  },
  {
    id: 'note-write-201',
    family: 'status',
    severity: 'low',
    source: 'HTTPMutator: status code 2XX replaced by another 2XX',
    endpoint: 'POST /secret/note',
    untried: 'a successful POST /secret/note',
    name: 'POST /secret/note answers 201',
    breaks: 'A note written is answered 201 Created instead of 200 OK.',
    check: 'Assert the exact status of a successful note write, not just that it is 2xx.',
    why: 'The status is part of the contract: clients and gateways branch on it, and 201 promises a new resource (and a Location) that is not there.',
    hunt: true,
    answer: status('POST', NOTE, 200, 201)
  },
  {
    id: 'patch-heartbeat-405',
    family: 'status',
    severity: 'low',
    source: 'HTTPMutator: status code 5XX replaced by a 4XX',
    endpoint: 'PATCH /heartbeat',
    untried: 'a PATCH /heartbeat',
    name: 'PATCH /heartbeat answers 405',
    breaks: 'PATCH /heartbeat is answered 405 Method Not Allowed instead of 500.',
    check: 'Assert the exact status of every method the heartbeat answers, PATCH included.',
    why: 'An endpoint that fails on purpose is still a contract: a suite that skips the odd methods misses what changes there.',
    hunt: true,
    answer: status('PATCH', '/heartbeat', 500, 405)
  },
  {
    id: 'trace-heartbeat-500',
    family: 'status',
    severity: 'low',
    source: 'HTTPMutator: status code 5XX replaced by another 5XX',
    endpoint: 'TRACE /heartbeat, and POST /heartbeat as TRACE',
    untried: 'a TRACE /heartbeat, or a POST /heartbeat with X-HTTP-Method-Override: TRACE',
    name: 'TRACE /heartbeat answers 500',
    breaks: 'TRACE on the heartbeat (sent as TRACE, or as a POST with the method override) is answered 500 Internal Server Error instead of 501 Not Implemented.',
    check: 'Assert the exact status of TRACE on the heartbeat, not just that it is 5xx.',
    why: '501 says "this server never does that" and 500 "something broke, try again": a client or a monitor that retries on 500 keeps trying for nothing.',
    hunt: true,
    answer (asked, answer) {
      if (asked.resource !== '/heartbeat' || answer.statusCode !== 501) return UNCHANGED
      answer.code(500)
      return { changed: true }
    }
  },
  {
    id: 'delete-heartbeat-204',
    family: 'status',
    severity: 'medium',
    source: 'HTTPMutator: status code 4XX replaced by a 2XX',
    endpoint: 'DELETE /heartbeat',
    untried: 'a DELETE /heartbeat',
    name: 'DELETE /heartbeat answers 204',
    breaks: 'DELETE /heartbeat is answered 204 No Content, as if it had worked, instead of 405 Method Not Allowed.',
    check: 'Send the methods the heartbeat refuses, DELETE among them, and assert each refusal\'s exact status.',
    why: 'A success for a refused method tells the client its request worked: the bug stays hidden until someone counts on that DELETE.',
    hunt: true,
    answer: status('DELETE', '/heartbeat', 405, 204)
  },
  {
    id: 'created-200',
    family: 'status',
    severity: 'low',
    source: 'HTTPMutator: status code 2XX replaced by another 2XX',
    endpoint: 'POST /challenger',
    untried: 'a POST /challenger that makes a session',
    name: 'POST /challenger answers 200',
    breaks: 'A new session is answered 200 OK instead of 201 Created.',
    check: 'Assert the exact status of creating a session, not just that it is 2xx.',
    why: 'A client that tells "created" from "already there" by the status gets it wrong.',
    hunt: false,
    answer (asked, answer) {
      if (asked.method !== 'POST' || asked.resource !== '/challenger' || answer.statusCode !== 201) return UNCHANGED
      answer.code(200)
      return { changed: true }
    }
  },
  {
    id: 'heartbeat-200',
    family: 'status',
    severity: 'low',
    source: 'HTTPMutator: status code 2XX replaced by another 2XX',
    endpoint: 'GET /heartbeat',
    untried: 'a GET /heartbeat',
    name: 'GET /heartbeat answers 200 with a body',
    breaks: 'GET /heartbeat is answered 200 with a small JSON body instead of 204 No Content.',
    check: 'Assert the exact status of GET /heartbeat, and that its body is empty.',
    why: '204 promises no body: a client that trusts it never reads one, and one that does not may hang waiting for it.',
    hunt: true,
    answer (asked, answer) {
      if (asked.method !== 'GET' || asked.resource !== '/heartbeat' || answer.statusCode !== 204) return UNCHANGED
      answer.code(200)
      answer.header('content-type', 'application/json; charset=utf-8')
      return { changed: true, body: '{"alive":true}' }
    }
  }
]
