// The service alone, logging at info into an array of parsed lines, for tests that read what it says.
import Fastify, { type FastifyInstance } from 'fastify'
import type { Test } from 'tap'
import apiChallenges from '../src/app.js'
import type { ApiChallengesOptions } from '../src/domain/config/options.js'

export interface LogLine { level: number, time: number, msg: string, store?: string }

/** The service alone with these options, logging (at info) into `lines`, closed on teardown. */
export async function logged (t: Test, options: ApiChallengesOptions): Promise<{ app: FastifyInstance, lines: LogLine[] }> {
  const lines: LogLine[] = []
  const app = Fastify({ logger: { level: 'info', stream: { write: (line: string) => { lines.push(JSON.parse(line)) } } } })
  app.register(apiChallenges, options)
  t.teardown(() => app.close())
  await app.ready()
  return { app, lines }
}
