// The deliberate defects (mutants): each changes one decision of the service and nothing else, so
// that exactly one thing is wrong. A defect is data (what it breaks, the check that catches it) and
// one small function at the phase of the request where its decision is made (./defect.ts says what
// each phase may change). plugins/defects.ts runs them; the families are in ./families/.
import type { Defect } from './defect.js'
import { authDefects } from './families/auth.js'
import { bodyDefects } from './families/body.js'
import { headerDefects } from './families/headers.js'
import { negotiationDefects } from './families/negotiation.js'
import { sessionDefects } from './families/sessions.js'
import { stateDefects } from './families/state.js'
import { statusDefects } from './families/status.js'

export type { Answer, Asked, Defect, DefectContext, Family, Phases, Severity } from './defect.js'

/** Every defect, family by family. */
export const defects: readonly Defect[] = [
  ...statusDefects, ...headerDefects, ...bodyDefects, ...authDefects, ...sessionDefects, ...stateDefects, ...negotiationDefects
]

const byId = new Map(defects.map(defect => [defect.id, defect]))

/** The defect `id` names, or undefined. */
export function defectById (id: string): Defect | undefined {
  return byId.get(id)
}

/** The ids of a valid list, or why it is not one. */
export function checkDefectIds (ids: readonly string[]): string | undefined {
  const unknown = ids.filter(id => !byId.has(id))
  if (unknown.length > 0) return `unknown defect ${unknown.map(id => JSON.stringify(id)).join(', ')} (the defects are ${defects.map(d => d.id).join(', ')})`
  return undefined
}

/** The defects a hunt hides by default. */
export const HUNT_SIZE = 3

/** `count` different huntable defects, drawn with `random` (0 ≤ random() < 1). */
export function drawHunt (random: () => number = Math.random, count = HUNT_SIZE): string[] {
  const pool = defects.filter(defect => defect.hunt).map(defect => defect.id)
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[pool[i], pool[j]] = [pool[j] as string, pool[i] as string]
  }
  return pool.slice(0, count)
}
