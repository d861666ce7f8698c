// CLASS=1's made admin token, kept out of the start-up message, which the room may see on the projector
// beside the QR code: written to a file only this user can read, in a folder of its own (made by mkdtemp,
// so nobody can have put a link there first), removed when the process exits.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Writes `token` to a new file only this user can read, and returns its path; the folder goes at exit. */
export function writeTokenFile (token: string, under: string = tmpdir(), onExit: (remove: () => void) => void = remove => { process.once('exit', remove) }): string {
  const folder = mkdtempSync(join(under, 'api-challenges-'))
  const file = join(folder, 'admin-token')
  writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' })
  onExit(() => { rmSync(folder, { recursive: true, force: true }) })
  return file
}
