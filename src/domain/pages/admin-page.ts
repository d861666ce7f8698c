// The class board's pages (GET /admin, and GET /admin?view=projector for a projector). They carry no token
// and no learner's data: public/gui/admin.js asks for the token, keeps it in sessionStorage and fills the
// board in from /admin/*, as text only. Both show a QR code of the landing page, made here as SVG markup.
import { Type } from '@sinclair/typebox'
import QRCode from 'qrcode'
import { escapeHtml, page } from './pages.js'

export const BOARD_REFRESH_MS = 5000
/** Sessions asked for per request of GET /admin/sessions, and the most the board shows. */
export const BOARD_PAGE = 250
export const BOARD_CAP = 1000
export const TOKEN_KEY = 'api-challenges admin token'
/** The longest landing-page URL made into a QR code (the Host header is the client's). */
export const QR_MAX_URL = 256

/** The views of GET /admin: the board, and the projector's (large type, every learner on one screen). */
export const BOARD_VIEWS = ['board', 'projector'] as const
export type BoardView = typeof BOARD_VIEWS[number]

export const BoardQuery = Type.Object({
  view: Type.Optional(Type.String({ description: `${BOARD_VIEWS.join(' or ')} (default board)` }))
})

export function isBoardView (view: string): view is BoardView {
  return (BOARD_VIEWS as readonly string[]).includes(view)
}

/** GET /admin's 400 for a view it does not have. */
export function badView (view: string): string {
  return `Invalid request: view must be ${BOARD_VIEWS.map(v => JSON.stringify(v)).join(' or ')}, not ${JSON.stringify(view)}`
}

/** Where learners start, as the page was reached, and its QR code (null: too long for one). */
export interface Landing {
  url: string
  qr: string | null
  /** Reached at a loopback address, which the learners' machines cannot use. */
  loopback: boolean
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i

/** The landing page at `origin` + `base` (`http://10.0.0.5:3000`, `/practice`) and its QR code as inline SVG. */
export async function landing (origin: string, base: string): Promise<Landing> {
  const url = `${origin}${base}/`
  // A Host that makes no URL (the client's to send) is simply not called loopback.
  const loopback = URL.canParse(origin) && LOOPBACK.test(new URL(origin).hostname)
  if (url.length > QR_MAX_URL) return { url, qr: null, loopback }
  const svg = (await QRCode.toString(url, { type: 'svg', margin: 2 })).trim()
  // The markup is qrcode's own (paths, no text of the URL); it gets a name for screen readers.
  return { url, qr: svg.replace('<svg ', `<svg role="img" aria-label="QR code of ${escapeHtml(url)}" `), loopback }
}

function settings (base: string): string {
  return `data-base="${escapeHtml(base)}" data-token-key="${escapeHtml(TOKEN_KEY)}" ` +
    `data-refresh-ms="${BOARD_REFRESH_MS}" data-page="${BOARD_PAGE}" data-cap="${BOARD_CAP}"`
}

/** The token's form. Its input has no `name`: a submit without the script puts nothing in the URL. */
const login = `<noscript><p class="error">The board is filled in by its script: turn JavaScript on for this page.</p></noscript>
<p id="message" class="error" role="alert" hidden></p>
<form id="login" hidden>
<p>Enter the admin token the server was started with (<code>ADMIN_TOKEN</code>). It is kept in this tab only, until you close it.</p>
<p class="field"><label for="token">Admin token</label> <input id="token" type="password" autocomplete="off" spellcheck="false" required>
<button type="submit">Show the board</button></p>
</form>`

const LOOPBACK_WARNING = '<p class="warning">This is this machine\'s own address: the learners\' machines cannot reach it. ' +
  'Open this page at an address they can reach, and the code follows.</p>'

/** The landing page's QR code (or why there is none). */
function code (where: Landing): string {
  return `<figure id="join">${where.qr ?? '<p class="no-qr">(this address is too long for a QR code)</p>'}</figure>`
}

function link (where: Landing): string {
  return `<a href="${escapeHtml(where.url)}">${escapeHtml(where.url)}</a>`
}

/** The board, empty, its settings on #admin. */
export function adminPage (base: string, where: Landing): string {
  const b = escapeHtml(base)
  return page(base, 'Class board', `
<h1>Class board</h1>
<div id="admin" ${settings(base)}>
${login}
<section id="board" hidden>
<div id="overview">
<div>
<dl id="totals">
<div><dt>live sessions</dt><dd id="live">0</dd></div>
<div><dt>active in the last 10 minutes</dt><dd id="active">0</dd></div>
<div><dt>updated</dt><dd><time id="updated"></time></dd></div>
</dl>
<p id="start">Learners start at ${link(where)} (or scan the QR code).</p>${where.loopback ? LOOPBACK_WARNING : ''}
<p><a id="to-projector" href="${b}/admin?view=projector">Projector view</a>: large type, every learner on one screen, in an order that stays put.</p>
</div>
${code(where)}
</div>
<p id="status" role="status"></p>
<h2>Learners <span id="learner-count"></span></h2>
<p id="more" hidden></p>
<table id="learners">
<thead><tr><th>learner</th><th>progress</th><th>medals</th><th>last seen</th><th>next challenge</th><th>bug hunt</th><th>grade</th></tr></thead>
<tbody></tbody></table>
<p id="no-learners" hidden>No learners yet: sessions appear here as they are created.</p>
<h2>Challenges</h2>
<table id="challenge-bars">
<thead><tr><th>id</th><th>challenge</th><th>passed by</th><th></th></tr></thead>
<tbody></tbody></table>
<p><button id="download" type="button">Download CSV</button> <span id="download-status" role="status"></span></p>
<p class="note">The file has every learner, with their full session ids: like passwords, each lets its holder act as that learner. Keep it to yourself.</p>
<p><button id="forget" type="button">Forget the token</button></p>
</section>
</div>`, '/gui/admin.js', '/gui/admin.css')
}

/** The projector's view: the challenges' bars and the QR code first, then a card per learner (public/gui/projector.js). */
export function projectorPage (base: string, where: Landing): string {
  return page(base, 'Class board: projector', `
<div id="admin" ${settings(base)} data-view="projector">
${login}
<section id="board" hidden>
<header id="top">
<h1>Class board</h1>
<p id="start">Start at ${link(where)}</p>
<dl id="totals">
<div><dt>learners</dt><dd id="live">0</dd></div>
<div><dt>active (10 min)</dt><dd id="active">0</dd></div>
<div><dt>updated</dt><dd><time id="updated"></time></dd></div>
</dl>
<a id="to-board" href="${escapeHtml(base)}/admin">Board</a>
${where.loopback ? LOOPBACK_WARNING : ''}
</header>
<p id="status" role="status"></p>
<div id="band">
<ol id="challenge-bars" aria-label="Learners who passed each challenge"></ol>
${code(where)}
</div>
<p id="more" hidden></p>
<ol id="learner-grid" aria-label="Learners, by name"></ol>
<p id="no-learners" hidden>No learners yet: scan the code or open the address above to start.</p>
</section>
</div>`, '/gui/admin.js', '/gui/projector.css')
}

/** The page GET /admin answers: the board or the projector's view, with the landing page as reached at `origin`. */
export async function boardPage (base: string, origin: string, view: BoardView): Promise<string> {
  const where = await landing(origin, base)
  return view === 'projector' ? projectorPage(base, where) : adminPage(base, where)
}
