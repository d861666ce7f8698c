// A bug hunt as the progress page shows it: how many of its hidden defects are found, and the found
// ones revealed (name, what was wrong, why it matters), never the hidden ones. pages.ts renders it;
// as JSON (GET /gui/challenges/{guid}/hunt) it is what public/gui/refresh.js redraws the section from.
import { Type, type Static } from '@sinclair/typebox'
import { revealed } from '../defects/hunt.js'
import type { Hunt } from '../sessions/store.js'

/** A hunt as its page shows it: the found defects revealed, the hidden ones only counted. */
export const HuntSection = Type.Object({
  hidden: Type.Integer({ description: 'Defects the hunt hides' }),
  found: Type.Array(Type.Object({
    id: Type.String(),
    name: Type.String(),
    breaks: Type.String({ description: 'What was wrong' }),
    why: Type.String({ description: 'Why it matters' })
  }), { description: 'The defects found, in the order found' })
})
export type HuntView = Static<typeof HuntSection>

/** GET /gui/challenges/{guid}/hunt: the session's hunt, or null when it is not one. */
export const HuntState = Type.Object({ hunt: Type.Union([HuntSection, Type.Null()]) })

export function huntView (hunt: Hunt): HuntView {
  return { hidden: hunt.hidden.length, found: hunt.found.map(revealed) }
}

/** Whether every hidden defect is found (as huntComplete, on the view). */
export function viewComplete (view: HuntView): boolean {
  return view.hidden > 0 && view.found.length >= view.hidden
}

/** "Bug hunt: 2 of 3 found", then "Bug hunt complete: 3 of 3 found" (public/gui/refresh.js says the same). */
export function huntTitle (view: HuntView): string {
  return `Bug hunt${viewComplete(view) ? ' complete' : ''}: ${view.found.length} of ${view.hidden} found`
}
