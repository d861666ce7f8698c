// compose.yaml's `class`: waits until the class answers through nginx (GET /readyz: an instance
// whose Redis serves), then says once where learners go, and exits. Inside the compose network it
// cannot see this machine's address on the room's network: PUBLIC_URL gives it.
import { createRequire } from 'node:module'
import { setTimeout as sleep } from 'node:timers/promises'

const LIMIT_MS = 180_000
// CLASS_PORT may name an address too (127.0.0.1:8080): the port is its last part.
const port = (process.env.CLASS_PORT ?? '8080').split(':').at(-1)
const publicUrl = process.env.PUBLIC_URL?.replace(/\/+$/, '')

const started = Date.now()
for (;;) {
  const ready = await fetch('http://proxy/readyz', { signal: AbortSignal.timeout(2000) }).then(res => res.ok, () => false)
  if (ready) break
  if (Date.now() - started > LIMIT_MS) {
    console.log(`The class is not ready after ${LIMIT_MS / 1000} s: docker compose ps, and docker compose logs, say why.`)
    process.exit(1)
  }
  await sleep(500)
}

const landing = `${publicUrl ?? `http://<this machine's address>:${port}`}/`
const lines = [
  `API Challenges class ready: learners open ${landing}`,
  publicUrl === undefined
    ? `    (this machine's address on the room's network: hostname -I on Linux, ipconfig getifaddr en0 on macOS; with PUBLIC_URL=http://<it>:${port} set at docker compose up, it is written here)`
    : undefined,
  `    first request: curl -i -X POST ${landing}challenger`,
  process.env.ADMIN_TOKEN === undefined
    ? '    board: off (no ADMIN_TOKEN)'
    : `    board: http://127.0.0.1:${process.env.BOARD_PORT ?? '8081'}/admin on this machine only, with your ADMIN_TOKEN`,
  '    the end of the class: docker compose down -v'
]
console.log(lines.filter(line => line !== undefined).join('\n'))
if (publicUrl !== undefined) {
  // The service's own QR code package, from the image.
  const QRCode = createRequire('/app/package.json')('qrcode')
  console.log(`\nThe landing page, ${landing}, for a phone's camera:\n${await QRCode.toString(landing, { type: 'terminal', small: true })}`)
}
