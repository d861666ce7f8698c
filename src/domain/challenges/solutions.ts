// The reference's solution pages that the OpenAPI document links from each operation, found by the catalogue's triggers.
import { challenges, resourceOf, SOLUTIONS_BASE, type Challenge } from './catalogue.js'

const SOLUTIONS_HOST = new URL(SOLUTIONS_BASE).host

/** The challenges, in id order, whose trigger is one of `methods` on `path` (a route's path, '/heartbeat'). */
export function challengesOf (methods: readonly string[], path: string): Challenge[] {
  return challenges.filter(c => methods.includes(c.trigger.slice(0, c.trigger.indexOf(' '))) && resourceOf(c.trigger) === path)
}

/** A Markdown list of the solution pages of `list`, marked as external; '' when none has one. */
export function solutionList (list: readonly Challenge[]): string {
  return list.flatMap(c => c.solution === undefined
    ? []
    : [`- Challenge ${c.id}, ${c.name}: [Solution (external, ${SOLUTIONS_HOST})](${SOLUTIONS_BASE}${c.solution})`]).join('\n')
}
