// X-Forwarded-For entries as proxies write them: a bare address, IPv4 with a port (1.2.3.4:5678,
// as Azure's front doors do), IPv6 in brackets with or without one ([2001:db8::1]:443).
import { isIP } from 'node:net'

const V4_PORT = /^([0-9.]{7,15}):(\d{1,5})$/
const V6_BRACKETS = /^\[([^\]]{2,64})\](?::(\d{1,5}))?$/

/** The address an entry names, without its port; undefined when it names none (`unknown`, a host name, garbage). */
export function forwardedAddress (entry: string): string | undefined {
  const text = entry.trim()
  if (isIP(text) !== 0) return text
  const [, address = '', port = '0'] = V4_PORT.exec(text) ?? V6_BRACKETS.exec(text) ?? []
  if (Number(port) > 65_535) return undefined
  return isIP(address) !== 0 ? address : undefined
}

/** The header with each entry that names an address written as that address alone; the others as they were. */
export function withoutPorts (header: string): string {
  return header.split(',').map(entry => forwardedAddress(entry) ?? entry.trim()).join(', ')
}
