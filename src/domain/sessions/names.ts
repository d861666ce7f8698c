// Learners' display names for the class board: the learner's text, inserted as text and direction-isolated.

/** The longest name, in code points, after trimming. */
export const MAX_NAME = 40

/** The name, trimmed, or why it is refused. Bidirectional controls would turn the text around it (the board's
 * short id among it); a lone surrogate is no character, and no XML can carry it. */
export function checkName (value: unknown): { name: string } | { refused: string } {
  if (typeof value !== 'string') return { refused: `name must be a string of 1 to ${MAX_NAME} characters, got ${value === null ? 'null' : typeof value}` }
  const name = value.trim()
  const length = [...name].length
  if (length === 0) return { refused: 'name must not be empty (or only spaces)' }
  if (length > MAX_NAME) return { refused: `name must be at most ${MAX_NAME} characters, got ${length}` }
  if (/\p{Cc}/u.test(name)) return { refused: 'name must not contain control characters (tabs, line breaks, …)' }
  if (/\p{Bidi_Control}/u.test(name)) return { refused: 'name must not contain bidirectional controls (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069)' }
  if (/\p{Cs}/u.test(name)) return { refused: 'name must not contain lone surrogates' }
  return { name }
}
