// The sessions family: which session an answer is about, and whether a session is live.
import { header, UNCHANGED, type Defect } from '../defect.js'

export const sessionDefects: Defect[] = [
  {
    id: 'unknown-session-live',
    family: 'sessions',
    severity: 'medium',
    endpoint: 'POST /challenger with X-CHALLENGER',
    untried: 'a POST /challenger whose X-CHALLENGER names no live session',
    name: 'Any session id is said to be live',
    breaks: 'POST /challenger with an X-CHALLENGER that names no live session (one never made, or expired) is answered 200, as if it were live, instead of 404.',
    check: 'Check a session id that does not exist (a made-up UUID) and assert it is refused, and how.',
    why: 'A client that checks its session before using it carries on with a dead one, and every request after fails far from the cause.',
    // A request that names no live session meets no hunt.
    hunt: false,
    answer (asked, answer) {
      if (asked.method !== 'POST' || asked.resource !== '/challenger' || answer.statusCode !== 404) return UNCHANGED
      answer.code(200)
      answer.removeHeader('content-type')
      return { changed: true, body: '' }
    }
  },
  {
    id: 'session-echo-caller',
    family: 'sessions',
    severity: 'medium',
    endpoint: 'GET /challenger/{guid}',
    untried: 'a GET /challenger/{guid} of one session with X-CHALLENGER naming another',
    name: 'A session\'s JSON names the caller\'s session',
    breaks: 'GET /challenger/{guid} answers X-Challenger with the session the request named, not the one in the URL whose JSON it is.',
    check: 'Read another session\'s JSON with your own X-CHALLENGER, and assert which session the answer\'s X-Challenger names.',
    why: 'When an answer says it is about one thing and holds another, a client files the data under the wrong owner.',
    hunt: true,
    answer (asked, answer) {
      const caller = header(asked, 'x-challenger')
      const about = answer.getHeader('x-challenger')
      if (asked.resource !== '/challenger/:guid' || answer.statusCode !== 200 || caller === undefined || typeof about !== 'string' || about === caller.toLowerCase()) return UNCHANGED
      answer.header('x-challenger', caller)
      return { changed: true }
    }
  }
]
