// Learners' display names, for the class board: what a name may be, and the one message for what
// it may not. A name is the learner's text, shown to the instructor and on the progress page:
// pages insert it as text, never as markup, and isolate its direction (unicode-bidi: isolate).

/** The longest name, in characters (Unicode code points), after trimming. */
export const MAX_NAME = 40

/**
 * The name as it is kept (trimmed), or the reason it is refused: not a string, empty once trimmed,
 * longer than MAX_NAME, with a control character (Unicode Cc: tabs and line breaks among them), with
 * a bidirectional control (Unicode Bidi_Control: U+061C, U+200E, U+200F, U+202A to U+202E, U+2066
 * to U+2069, which turn the text around them, the board's short id after a name among it), or
 * with a lone surrogate (no character at all, and no XML can carry it).
 */
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
