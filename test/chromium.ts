// Debian's chromium for the browser tests, driven by playwright-core (never a browser download).
// Where chromium is missing a browser test is skipped and says why; in CI, which installs it, a
// missing chromium fails the run instead of passing it silently.
import { existsSync } from 'node:fs'
import { chromium, type Browser, type BrowserContextOptions, type Page, type Request } from 'playwright-core'
import t, { type Test } from 'tap'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** Why the browser tests cannot run here, or false when they can. */
export const missing: false | string = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is not installed (apt-get install chromium); CI installs it and runs this test`

/**
 * How long one step may wait for the page (an element, a function, a download). These are waits,
 * not claims of speed: on a loaded machine (CI runs three Node versions beside other work) Swagger
 * UI took over 10 s to render. A step that never happens still fails, naming itself.
 */
export const STEP_MS = 60_000

/** A top-level test that needs chromium: skipped without it, failed without it in CI. */
export function chromiumTest (name: string, fn: (t: Test) => Promise<void>): void {
  if (missing !== false && process.env.CI === 'true') t.fail(missing)
  // Several steps' worth, below the runner's own limit for a file (.taprc: 600 s).
  else t.test(name, { skip: missing, timeout: 480_000 }, fn)
}

/** A page, closed when the test ends, whose steps wait up to STEP_MS. */
export async function openPage (t: Test, browser: Browser, options?: BrowserContextOptions): Promise<Page> {
  const page = await browser.newPage(options)
  t.teardown(() => page.close())
  page.setDefaultTimeout(STEP_MS)
  return page
}

/**
 * What went wrong with a request the page made, or null when nothing did. A page's own fetch that
 * its leaving cut short (a reload or a new page while refresh.js or the board was reading) is
 * net::ERR_ABORTED, as in any browser, and no problem: on a loaded machine a reload often lands
 * while a 2-second refresh is on the wire. Anything else (a file that failed, a refused
 * connection) is said with its method, address and chromium's reason.
 */
export function failure (request: Request): string | null {
  const reason = request.failure()?.errorText
  if (reason === 'net::ERR_ABORTED' && ['fetch', 'xhr'].includes(request.resourceType())) return null
  return `${request.method()} ${request.url()}: ${reason}`
}

/** A headless chromium, closed when the test ends. */
export async function launch (t: Test): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking']
  })
  t.teardown(() => browser.close())
  return browser
}
