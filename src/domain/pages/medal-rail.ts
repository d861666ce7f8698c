// The progress page's rail of medals (src/domain/challenges/medals.ts), every value escaped. Each medal
// carries its rule as data, so that the page's refresh (public/gui/refresh.js) judges it again from the
// statuses it reads, without a copy of the rules; its state is said in words, not only in colour.
import { earned, MEDALS, type Medal, type MedalFacts } from '../challenges/medals.js'
import { escapeHtml } from './html.js'

function ruleData (medal: Medal): string {
  const rule = medal.rule
  if ('passed' in rule) return `data-passed="${rule.passed}"`
  if ('all' in rule) return `data-all="${rule.all.join(',')}"`
  return 'data-hunt="1"'
}

/** The rail: every medal, earned or not yet, with how to earn it; a hunt's medal only on a hunt's page. */
export function medalRail (facts: MedalFacts): string {
  const shown = MEDALS.filter(medal => !('hunt' in medal.rule) || facts.hunt != null)
  const items = shown.map(medal => {
    const has = earned(medal, facts)
    return `<li class="medal ${has ? 'earned' : 'locked'}" data-medal="${escapeHtml(medal.id)}" ${ruleData(medal)} title="${escapeHtml(medal.description)}">` +
      `<span class="medal-icon" aria-hidden="true">${has ? '★' : '☆'}</span> <span class="medal-name">${escapeHtml(medal.name)}</span> ` +
      `<span class="medal-state">${has ? 'earned' : 'not yet'}</span><span class="medal-why">${escapeHtml(medal.description)}</span></li>`
  })
  const count = shown.filter(medal => earned(medal, facts)).length
  return `
<section id="medals" aria-labelledby="medals-title">
<h2 id="medals-title">Medals: <span id="medals-count">${count} of ${shown.length}</span></h2>
<ol class="medals">${items.join('')}</ol>
</section>`
}
