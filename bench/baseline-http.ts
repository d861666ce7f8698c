// The physical floor: a bare node:http server that answers every request with 204 (PORT: the
// port, default any).
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

const server = createServer((request, response) => {
  request.resume()
  response.statusCode = 204
  response.end()
})
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`bench-ready http://127.0.0.1:${(server.address() as AddressInfo).port}\n`)
})
process.on('SIGTERM', () => { server.close(() => process.exit(0)) })
