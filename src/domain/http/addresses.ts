// The addresses learners can use. A server bound to every interface (0.0.0.0, ::) is reached at each
// address of this machine but loopback; Fastify names 127.0.0.1 first, which no other machine can use.
import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os'

/** The hosts that mean every interface. */
const EVERY_INTERFACE = new Set(['0.0.0.0', '::', '::0', '0:0:0:0:0:0:0:0'])

/** Interfaces of containers and virtual machines (docker0, virbr0, …): listed last, since learners seldom reach them. */
const VIRTUAL = /^(docker|br-|veth|virbr|vboxnet|vmnet|cni|flannel|podman|lxc|lxd|tun|tap|wg|zt)/

/** Whether `host` is this machine alone (127.0.0.0/8, ::1, localhost). */
export function loopbackOnly (host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host)
}

/**
 * For a server bound to every interface, `http://<address>:<port>` for each address of `interfaces`
 * but loopback and IPv6 link-local (which needs a zone no URL carries), IPv6 ones only when bound to
 * `::`; the physical interfaces first. Undefined for any other host: its own address says it.
 */
export function learnerUrls (host: string, port: number, interfaces: NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces()): string[] | undefined {
  if (!EVERY_INTERFACE.has(host)) return undefined
  const found: Array<{ url: string, virtual: boolean }> = []
  for (const [name, infos] of Object.entries(interfaces)) {
    for (const info of infos ?? []) {
      if (info.internal) continue
      if (info.family === 'IPv6' && (host === '0.0.0.0' || /^fe[89ab]/i.test(info.address))) continue
      const url = info.family === 'IPv6' ? `http://[${info.address}]:${port}` : `http://${info.address}:${port}`
      if (!found.some(seen => seen.url === url)) found.push({ url, virtual: VIRTUAL.test(name) })
    }
  }
  // A stable sort: the system's order within each kind.
  return found.sort((a, b) => Number(a.virtual) - Number(b.virtual)).map(({ url }) => url)
}

/** The networks this machine is on (each interface's CIDR but loopback's): what the machines beside it can use. */
export function localNetworks (interfaces: NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces()): string[] {
  return Object.values(interfaces).flatMap(infos => (infos ?? []).filter(info => !info.internal && info.cidr !== null).map(info => info.cidr as string))
}
