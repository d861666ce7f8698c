// Heap per idle session: sessions created through the registry API in this process, heap measured
// after a full gc. Run with --expose-gc (npm run bench does).
import { MemoryStore } from '../src/domain/store.js'

const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) {
  process.stderr.write('memory.js needs node --expose-gc\n')
  process.exit(1)
}

function heapAfterGc (): number {
  gc?.()
  gc?.()
  return process.memoryUsage().heapUsed
}

export interface MemoryFigure {
  sessions: number
  bytesPerSession: number
  bytesPerSessionWithNote: number
  /** Time the expiry sweep took per session once all of them had expired, in microseconds. */
  expiryMicrosPerSession: number
  /** Heap still held per session after they expired and a gc ran. */
  bytesPerSessionAfterExpiry: number
}

async function measure (sessions: number): Promise<MemoryFigure> {
  // The script's own list of guids is allocated before the first reading, so it is not counted.
  const guids = new Array<string>(sessions).fill('')
  // A hand-moved clock and the store's sweep task, so expiry can be timed without waiting.
  let now = 0
  let sweep = (): void => {}
  const store = new MemoryStore({ now: () => now, every: (_ms, task) => { sweep = task; return () => {} } })
  const before = heapAfterGc()
  for (let i = 0; i < sessions; i++) guids[i] = (await store.create()).guid
  const idle = heapAfterGc()
  // A full-length note in every session, for context: the note text itself is the learner's.
  // JSON.parse makes each a flat string, as the service's body parser does.
  for (let i = 0; i < sessions; i++) await store.setNote(guids[i] as string, JSON.parse(`"${String(i).padStart(100, 'n')}"`))
  const withNote = heapAfterGc()
  now += 10 * 60 * 1000
  const started = process.hrtime.bigint()
  sweep()
  const micros = Number(process.hrtime.bigint() - started) / 1000
  if (store.size !== 0) throw new Error(`${store.size} sessions outlived their expiry`)
  const expired = heapAfterGc()
  const figure = {
    sessions,
    bytesPerSession: Math.round((idle - before) / sessions),
    bytesPerSessionWithNote: Math.round((withNote - before) / sessions),
    expiryMicrosPerSession: Number((micros / sessions).toFixed(3)),
    bytesPerSessionAfterExpiry: Math.round((expired - before) / sessions)
  }
  await store.close()
  return figure
}

const figures: MemoryFigure[] = []
for (const sessions of [10_000, 100_000]) figures.push(await measure(sessions))
process.stdout.write(JSON.stringify(figures) + '\n')
