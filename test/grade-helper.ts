// The grade command run in the test's own process (so that its coverage counts), its output kept.
import { fileURLToPath } from 'node:url'
import { grade } from '../src/grade/grade.js'
import { createServer } from '../src/server.js'
import { root } from './processes.js'

export const suites = fileURLToPath(new URL('fixtures/suites/', import.meta.url))

// The suites' processes start without tap's hooks (NODE_OPTIONS and its settings): they are not under test.
export const leanEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NODE_OPTIONS' && !/^_?TAP/.test(name)))

/** grade(argv) with `env`, from the project's root; `onStderr` sees each piece of stderr as it comes. */
export async function graded (argv: string[], env: Record<string, string | undefined> = leanEnv, onStderr?: (text: string) => void) {
  let stdout = ''
  let stderr = ''
  const code = await grade(argv, {
    createServer,
    stdout: { write: (text: string) => { stdout += text } },
    stderr: {
      write: (text: string) => {
        stderr += text
        onStderr?.(text)
      }
    },
    env,
    cwd: root
  })
  return { code, stdout, stderr }
}
