// Medals, modelled on the reference's rail of 11 (one for every 10 challenges passed, "Clearance
// Granted" for all of the secret token and note, "Completist") and scaled to this catalogue: one for
// every 5 passed, the same two, and one for a bug hunt found in full. Each is worked out from what the
// session keeps (its progress bits and its hunt), so both stores, the session's JSON and a restore carry
// them with no field of their own, and a medal never disagrees with the challenges it stands for.
import { challenges, type Challenge } from './catalogue.js'

/** What a medal asks: a count of challenges passed, every challenge of a list, or a hunt found in full. */
export type MedalRule = { passed: number } | { all: readonly number[] } | { hunt: true }

export interface Medal {
  readonly id: string
  readonly name: string
  /** How it is earned, in a sentence. */
  readonly description: string
  readonly rule: MedalRule
}

/** Every how many challenges passed a milestone medal comes (the reference's 10, scaled to this catalogue). */
export const MILESTONE_EVERY = 5

const byIds = (when: (c: Challenge) => boolean): number[] => challenges.filter(when).map(c => c.id)
// The secret token and note: /secret/… challenges, as the reference's "Clearance Granted" takes them.
const SECRET = byIds(c => c.trigger.includes(' /secret/'))
const EVERY = byIds(() => true)

export const MEDALS: readonly Medal[] = Object.freeze([
  ...Array.from({ length: Math.floor(challenges.length / MILESTONE_EVERY) }, (_, i): Medal => {
    const count = (i + 1) * MILESTONE_EVERY
    return { id: `passed-${count}`, name: `${count} passed`, description: `Pass ${count} challenges`, rule: { passed: count } }
  }),
  { id: 'clearance-granted', name: 'Clearance Granted', description: `Pass every challenge of the secret token and note (${SECRET.map(id => String(id).padStart(2, '0')).join(', ')})`, rule: { all: SECRET } },
  { id: 'completist', name: 'Completist', description: `Pass all ${EVERY.length} challenges`, rule: { all: EVERY } },
  { id: 'hunter', name: 'Bug Hunter', description: 'Find every defect hidden in a bug hunt', rule: { hunt: true } }
])

/** What a medal is judged on: the ids of the challenges a session passed, and its hunt's counts when it is one. */
export interface MedalFacts {
  passed: readonly number[]
  hunt?: { found: number, hidden: number } | null | undefined
}

export function earned (medal: Medal, { passed, hunt }: MedalFacts): boolean {
  const rule = medal.rule
  if ('hunt' in rule) return hunt != null && hunt.hidden > 0 && hunt.found >= hunt.hidden
  if ('passed' in rule) return passed.length >= rule.passed
  return rule.all.every(id => passed.includes(id))
}

/** The ids of the medals a session has earned, in the rail's order. */
export function medalsOf (facts: MedalFacts): string[] {
  return MEDALS.filter(medal => earned(medal, facts)).map(medal => medal.id)
}
