// Which sessions are at work: at MAX_SESSIONS they never make room for a new one (docs/api.md,
// Capacity). Judged from what a session holds, so that both stores (and Redis's scripts, which get
// these constants) judge alike, and a session keeps its standing across restarts.
import { challenges, type Trigger } from '../challenges/challenge-list.js'

/** Challenges passed that make a session one at work, whichever they are: its creation and two more. */
export const AT_WORK_PASSES = 3

/** The challenges that need the session's token, or the credentials that issue it. */
const TOKEN_TRIGGERS: readonly Trigger[] = ['POST /secret/token issued', 'GET /secret/note x-auth-token', 'POST /secret/note x-auth-token', 'GET /secret/note bearer', 'POST /secret/note bearer']
export const TOKEN_BITS = challenges.filter(c => TOKEN_TRIGGERS.includes(c.trigger)).reduce((bits, c) => bits | (1 << c.bit), 0)

/** Whether a session with this progress and note is at work: it holds a note, its token was issued or used, or it passed AT_WORK_PASSES challenges. */
export function atWork (progress: number, note: string): boolean {
  if (note !== '' || (progress & TOKEN_BITS) !== 0) return true
  let passed = 0
  for (let bits = progress; bits !== 0 && passed < AT_WORK_PASSES; bits &= bits - 1) passed++
  return passed >= AT_WORK_PASSES
}
