// The state family: what is kept is not what was written, or what is read is not what was kept.
import { noteXml } from '../../http/xml.js'
import { truncate } from '../../sessions/truncate.js'
import { NOTE, noteOf, UNCHANGED, type Asked, type Defect } from '../defect.js'

/** The sessions whose note stale-read remembers from before the last write, at most (the oldest is forgotten first). */
export const STALE_NOTES = 10_000

// The notes a write was asked to keep (lost-write), or sent over the limit (note-answered-at-101), by request.
const unsaved = new WeakMap<Asked, string>()
const overLimit = new WeakMap<Asked, string>()
// The note before its last write, by session token (stale-read): a cache that is never invalidated.
const before = new Map<string, string>()

/** A write to the note, with a note, by a session: the note asked for. */
function written (asked: Asked): string | undefined {
  return asked.method === 'POST' && asked.resource === NOTE && asked.session !== null ? noteOf(asked.body) : undefined
}

/** The payload of a note written, with `note` instead. */
function answered (payload: unknown, note: string | undefined): unknown {
  return note === undefined || noteOf(payload) === undefined ? undefined : { ...(payload as object), note }
}

export const stateDefects: Defect[] = [
  {
    id: 'note-cut-at-99',
    family: 'state',
    severity: 'medium',
    endpoint: 'POST /secret/note',
    untried: 'a note write at the note length limit or over it',
    name: 'The note is cut one character short',
    breaks: 'A note of 100 characters or more is kept, and answered, with 99.',
    check: 'Write a note exactly at the length limit, and one over it, and assert the length (or the text) of what comes back and what is read later.',
    why: 'Off-by-one errors live at boundaries: a test that only writes short notes never reaches one.',
    hunt: true,
    body (asked, { noteMaxLength }) {
      const note = noteOf(asked.body)
      if (asked.method !== 'POST' || asked.resource !== NOTE || note === undefined || [...note].length < noteMaxLength) return false
      asked.body = { note: truncate(note, noteMaxLength - 1) }
      return true
    }
  },
  {
    id: 'note-answered-at-101',
    family: 'state',
    severity: 'medium',
    endpoint: 'POST /secret/note',
    untried: 'a note write over the note length limit',
    name: 'A write over the limit is answered with 101 characters',
    breaks: 'A note written over the length limit (100) is kept with 100 characters, but the write is answered with 101: the answer is not what was kept.',
    check: 'Write a note one character over the limit, and assert the length (or the text) of the answer, and of what is read later.',
    why: 'Off-by-one errors live on both sides of a boundary: the answer to a write is a promise of what was kept.',
    hunt: true,
    body (asked, { noteMaxLength }) {
      const note = written(asked)
      if (note !== undefined && [...note].length > noteMaxLength) overLimit.set(asked, note)
      return false
    },
    payload (asked, payload, { noteMaxLength }) {
      const note = overLimit.get(asked)
      return answered(payload, note === undefined ? undefined : truncate(note, noteMaxLength + 1))
    }
  },
  {
    id: 'lost-write',
    family: 'state',
    severity: 'high',
    endpoint: 'POST /secret/note',
    untried: 'a note write that changes the note',
    name: 'A note write is not kept',
    breaks: 'POST /secret/note answers with the new note but keeps the old one: the next read returns the note from before the write.',
    check: 'After a write, read the note back (GET) and assert it is the one just written.',
    why: 'An answer that says "saved" is not proof: only reading back shows what was kept.',
    hunt: true,
    body (asked) {
      const note = written(asked)
      if (note === undefined || note === asked.session?.note) return false
      unsaved.set(asked, note)
      asked.body = { note: asked.session?.note }
      return true
    },
    payload (asked, payload, { noteMaxLength }) {
      const note = unsaved.get(asked)
      return answered(payload, note === undefined ? undefined : truncate(note, noteMaxLength))
    }
  },
  {
    id: 'stale-read',
    family: 'state',
    severity: 'high',
    endpoint: 'GET /secret/note',
    untried: 'a note read after a write that changed the note',
    name: 'A read answers the note from before the last write',
    breaks: 'GET /secret/note answers the note as it was before the last write, though the write was kept (the write\'s answer, and the session\'s JSON, have it).',
    check: 'Write the note twice, reading it back after each write, and assert each read is the note just written.',
    why: 'Stale reads are what a cache or a replica gives when no one invalidates it: the write worked, and every reader still sees the past.',
    hunt: true,
    body (asked, { noteMaxLength }) {
      const note = written(asked)
      const session = asked.session as Asked['session'] & object
      if (note === undefined || truncate(note, noteMaxLength) === session.note) return false
      if (before.size >= STALE_NOTES) before.delete(before.keys().next().value as string)
      before.set(session.token, session.note)
      return false
    },
    answer (asked, answer, body) {
      const stale = asked.session === null ? undefined : before.get(asked.session.token)
      if (asked.method !== 'GET' || asked.resource !== NOTE || answer.statusCode !== 200 || stale === undefined || stale === asked.session?.note || typeof body !== 'string') return UNCHANGED
      return { changed: true, body: body.startsWith('{') ? JSON.stringify({ note: stale }) : noteXml({ note: stale }) }
    }
  },
  {
    id: 'note-trimmed',
    family: 'state',
    severity: 'medium',
    source: 'HTTPMutator: string length changed (SRE)',
    endpoint: 'POST /secret/note',
    untried: 'a note written with spaces (or line breaks) at its start or end',
    name: 'A note loses its spaces at both ends',
    breaks: 'A note written with spaces or line breaks at its start or end is kept, and answered, without them.',
    check: 'Write a note with spaces at both ends and assert it comes back exactly as written.',
    why: 'Trimming is a decision: made silently, it changes what a person wrote (a poem, a code block, a hint that starts with a space).',
    hunt: true,
    body (asked) {
      const note = written(asked)
      if (note === undefined || note.trim() === note) return false
      asked.body = { note: note.trim() }
      return true
    }
  }
]

/** stale-read's memory, for a test: how many sessions it holds. */
export function staleNotes (): number {
  return before.size
}
