// A session as GET /challenger/{guid} answers it and PUT /challenger/{guid} takes it back: the
// reference's keys, then a name and a hunt only when the session has them. The progress page keeps
// the same JSON in the browser (public/gui/restore.js).
import { statusMap } from '../challenges/catalogue.js'
import { huntJson } from '../defects/hunt.js'
import type { Session } from './store.js'

export function sessionJson (session: Session) {
  return {
    xChallenger: session.guid,
    xAuthToken: session.token,
    secretNote: session.note,
    challengeStatus: statusMap(session.progress),
    // Only when given: the reference's JSON has no name, and suites written for it compare it whole.
    ...(session.name === undefined ? {} : { name: session.name }),
    ...(session.hunt === undefined ? {} : { hunt: huntJson(session.hunt) })
  }
}
