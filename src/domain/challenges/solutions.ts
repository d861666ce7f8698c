// The reference's own solution pages, as the OpenAPI document links them from each operation: which
// challenges an operation's requests can pass is read from the catalogue's triggers (method and
// resource), not kept in a second list.
import { challenges, resourceOf, SOLUTIONS_BASE, type Challenge } from './catalogue.js'

/** The host the solution pages are on, named beside each link: the learner leaves this server. */
const SOLUTIONS_HOST = new URL(SOLUTIONS_BASE).host

/** The challenges, in id order, whose trigger is one of `methods` on `path` (a route's path, '/heartbeat'). */
export function challengesOf (methods: readonly string[], path: string): Challenge[] {
  return challenges.filter(c => methods.includes(c.trigger.slice(0, c.trigger.indexOf(' '))) && resourceOf(c.trigger) === path)
}

/**
 * A Markdown list with a link to the reference's solution page of each challenge in `list` that has
 * one, marked as external; '' when none has.
 */
export function solutionList (list: readonly Challenge[]): string {
  return list.flatMap(c => c.solution === undefined
    ? []
    : [`- Challenge ${c.id}, ${c.name}: [Solution (external, ${SOLUTIONS_HOST})](${SOLUTIONS_BASE}${c.solution})`]).join('\n')
}
