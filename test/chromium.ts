// Debian's chromium for the browser tests, driven by playwright-core (never a browser download).
// Where chromium is missing a browser test is skipped and says why; in CI, which installs it, a
// missing chromium fails the run instead of passing it silently.
import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'
import t, { type Test } from 'tap'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** Why the browser tests cannot run here, or false when they can. */
export const missing: false | string = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is not installed (apt-get install chromium); CI installs it and runs this test`

/** A top-level test that needs chromium: skipped without it, failed without it in CI. */
export function chromiumTest (name: string, timeout: number, fn: (t: Test) => Promise<void>): void {
  if (missing !== false && process.env.CI === 'true') t.fail(missing)
  // The runner's own limit for the file (.taprc: 300 s) is above every browser test's own.
  else t.test(name, { skip: missing, timeout }, fn)
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
