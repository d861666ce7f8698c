// The class board's page (GET /admin). It carries no token and no learner's data: public/gui/admin.js
// asks for the token, keeps it in sessionStorage and fills the board in from /admin/*, as text only.
import { escapeHtml, page } from './pages.js'

export const BOARD_REFRESH_MS = 5000
/** Sessions asked for per request of GET /admin/sessions, and the most the board shows. */
export const BOARD_PAGE = 250
export const BOARD_CAP = 1000
export const TOKEN_KEY = 'api-challenges admin token'

/** The board, empty, its settings on #admin. The token's input has no `name`: a submit without the script puts nothing in the URL. */
export function adminPage (base: string): string {
  const settings = `data-base="${escapeHtml(base)}" data-token-key="${escapeHtml(TOKEN_KEY)}" ` +
    `data-refresh-ms="${BOARD_REFRESH_MS}" data-page="${BOARD_PAGE}" data-cap="${BOARD_CAP}"`
  return page(base, 'Class board', `
<h1>Class board</h1>
<div id="admin" ${settings}>
<noscript><p class="error">The board is filled in by its script: turn JavaScript on for this page.</p></noscript>
<p id="message" class="error" role="alert" hidden></p>
<form id="login" hidden>
<p>Enter the admin token the server was started with (<code>ADMIN_TOKEN</code>). It is kept in this tab only, until you close it.</p>
<p class="field"><label for="token">Admin token</label> <input id="token" type="password" autocomplete="off" spellcheck="false" required>
<button type="submit">Show the board</button></p>
</form>
<section id="board" hidden>
<dl id="totals">
<div><dt>live sessions</dt><dd id="live">0</dd></div>
<div><dt>active in the last 10 minutes</dt><dd id="active">0</dd></div>
<div><dt>updated</dt><dd><time id="updated"></time></dd></div>
</dl>
<p id="status" role="status"></p>
<h2>Learners <span id="learner-count"></span></h2>
<p id="more" hidden></p>
<table id="learners">
<thead><tr><th>learner</th><th>progress</th><th>last seen</th><th>next challenge</th><th>bug hunt</th></tr></thead>
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
