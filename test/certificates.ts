// Certificates for the TLS tests, made at test time with the openssl command in a temporary
// directory: a CA, Redis's certificate (for 127.0.0.1 and localhost) and a client's, both signed
// by it, and a CA that signed neither. In CI its absence is a failure; elsewhere the tests that
// need it say so and do not run.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** false when openssl can run here; else why the TLS tests cannot. */
export const opensslMissing: false | string = spawnSync('openssl', ['version']).status === 0
  ? false
  : 'openssl is not installed (apt-get install openssl); CI installs it and runs these tests'

export interface Certificates {
  dir: string
  /** Paths of PEM files. */
  ca: string
  serverCert: string
  serverKey: string
  clientCert: string
  clientKey: string
  /** A CA that signed neither certificate. */
  otherCa: string
  remove (): Promise<void>
}

export async function certificates (): Promise<Certificates> {
  const dir = await mkdtemp(join(tmpdir(), 'api-challenges-tls-'))
  const at = (name: string): string => join(dir, name)
  const openssl = (...args: string[]): void => { execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] }) }
  const key = ['-newkey', 'rsa:2048', '-nodes']
  for (const ca of ['ca', 'other-ca']) openssl('req', '-x509', ...key, '-keyout', at(`${ca}.key`), '-out', at(`${ca}.crt`), '-days', '2', '-subj', `/CN=api-challenges test ${ca}`)
  const signed = async (name: string, subject: string, extensions: string): Promise<void> => {
    await writeFile(at(`${name}.ext`), extensions)
    openssl('req', ...key, '-keyout', at(`${name}.key`), '-out', at(`${name}.csr`), '-subj', subject)
    openssl('x509', '-req', '-in', at(`${name}.csr`), '-CA', at('ca.crt'), '-CAkey', at('ca.key'), '-CAcreateserial', '-out', at(`${name}.crt`), '-days', '2', '-extfile', at(`${name}.ext`))
  }
  await signed('server', '/CN=127.0.0.1', 'subjectAltName=IP:127.0.0.1,DNS:localhost\n')
  await signed('client', '/CN=api-challenges', 'extendedKeyUsage=clientAuth\n')
  return { dir, ca: at('ca.crt'), serverCert: at('server.crt'), serverKey: at('server.key'), clientCert: at('client.crt'), clientKey: at('client.key'), otherCa: at('other-ca.crt'), remove: async () => { await rm(dir, { recursive: true, force: true }) } }
}
