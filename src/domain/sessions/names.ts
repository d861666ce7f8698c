// Learners' display names for the class board: the learner's text, inserted as text and direction-isolated.
// A name must look like what it is: nothing in it may show as nothing, and no word may mix scripts
// (a Cyrillic "а" in a Latin word passes for another learner's name).

/** The longest name, in code points, after trimming. */
export const MAX_NAME = 40

// Line and paragraph separators (Zl, Zp: no control characters, yet each breaks the line it is in).
const SEPARATOR = /[\u2028\u2029]/u
// Interlinear annotation anchors, separators and terminators: text a renderer may hide, or show over other text.
const ANNOTATION = /[\ufff9-\ufffb]/u
// Spaces but the plain one and the ideographic one (a Japanese name's): no-break, en, em, thin, hair, figure,
// mathematical, ogham, …; each passes for a space, or for none, and two names that look alike are not.
const OTHER_SPACE = /[^\P{Zs} \u3000]/u
// More than a few combining marks on one character ("Zalgo" text) draw over the lines above and below.
const MAX_MARKS = 4
const STACKED_MARKS = new RegExp(`\\p{M}{${MAX_MARKS + 1},}`, 'u')

/** A character as U+XXXX. */
function codeOf (character: string): string {
  return `U+${(character.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}`
}

// Characters that show as nothing: the default-ignorables (zero-width spaces and joiners, fillers, tag
// characters, variation selectors, …) and U+2800, the braille blank, which is no default-ignorable but shows nothing.
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\u2800]/u
const ZERO_WIDTH_JOINERS = /[\u200c\u200d]/u
// Where a joiner does work: between two emoji (👩‍💻), or between letters of a script that joins (Arabic,
// the Indic ones, …); in Latin, Greek or Cyrillic it changes nothing that shows.
const EMOJI = /[\p{Extended_Pictographic}\p{Emoji_Modifier}\ufe0f]/u
const JOINING_LETTER = /[\p{L}\p{M}]/u
const UNJOINED_SCRIPT = /[\p{Script_Extensions=Latin}\p{Script_Extensions=Greek}\p{Script_Extensions=Cyrillic}]/u
// Variation selectors that choose how the character before shows: text or emoji style, an ideograph's variant.
const STYLE_SELECTOR = /[\ufe0e\ufe0f]/u
const IDEOGRAPH_SELECTOR = /[\u{e0100}-\u{e01ef}]/u

/** Whether the default-ignorable `point` at `i` does visible work where it stands. */
function joins (points: string[], i: number): boolean {
  const point = points[i] as string
  const before = points[i - 1] ?? ''
  const after = points[i + 1] ?? ''
  if (ZERO_WIDTH_JOINERS.test(point)) {
    if (point === '\u200d' && EMOJI.test(before) && /\p{Extended_Pictographic}/u.test(after)) return true
    return JOINING_LETTER.test(before) && JOINING_LETTER.test(after) && !UNJOINED_SCRIPT.test(before) && !UNJOINED_SCRIPT.test(after)
  }
  if (STYLE_SELECTOR.test(point)) return /\p{Emoji}/u.test(before)
  return IDEOGRAPH_SELECTOR.test(point) && /\p{Script=Han}/u.test(before)
}

// The scripts a word's letters are told apart by; a letter of none of them is of a script of its own.
const SCRIPTS = ['Latin', 'Greek', 'Cyrillic', 'Armenian', 'Georgian', 'Hebrew', 'Arabic', 'Syriac', 'Thaana', 'Nko',
  'Devanagari', 'Bengali', 'Gurmukhi', 'Gujarati', 'Oriya', 'Tamil', 'Telugu', 'Kannada', 'Malayalam', 'Sinhala',
  'Thai', 'Lao', 'Tibetan', 'Myanmar', 'Khmer', 'Mongolian', 'Ethiopic', 'Cherokee', 'Canadian_Aboriginal', 'Tifinagh',
  'Coptic', 'Glagolitic', 'Runic', 'Ogham', 'Yi', 'Vai', 'Adlam', 'Ol_Chiki', 'Osage', 'Javanese', 'Balinese', 'Sundanese',
  'Tagalog', 'Han', 'Hiragana', 'Katakana', 'Hangul', 'Bopomofo'].map(name => ({ name, test: new RegExp(`\\p{Script_Extensions=${name}}`, 'u') }))
// The writing systems that mix scripts by design (Unicode's "highly restrictive" level, UTS #39).
const SYSTEMS: Record<string, string[]> = {
  Han: ['Japanese', 'Korean', 'Chinese'], Hiragana: ['Japanese'], Katakana: ['Japanese'], Hangul: ['Korean'], Bopomofo: ['Chinese']
}
const NEUTRAL = /[\p{Script=Common}\p{Script=Inherited}]/u

/** The scripts a letter can belong to (with the writing systems its script is part of); null for a neutral one. */
function scriptsOf (letter: string): string[] | null {
  const scripts = SCRIPTS.filter(script => script.test.test(letter)).map(script => script.name)
  if (scripts.length === 0) return NEUTRAL.test(letter) ? null : [`U+${(letter.codePointAt(0) as number).toString(16).toUpperCase()}`]
  return scripts.flatMap(script => [script, ...SYSTEMS[script] ?? []])
}

/** The scripts (and writing systems) that hold all of a word's letters but those of `leaveOut`, and the scripts seen. */
function scriptsOfWord (word: string, leaveOut = ''): { common: string[] | null, seen: string[] } {
  let common: string[] | null = null
  const seen = new Set<string>()
  for (const letter of word) {
    const scripts = scriptsOf(letter)
    if (scripts === null || scripts.includes(leaveOut)) continue
    seen.add(scripts[0] as string)
    common = common === null ? scripts : common.filter(script => scripts.includes(script))
  }
  return { common, seen: [...seen] }
}

/** The scripts of a word that mixes them, else undefined. Latin beside Chinese, Japanese or Korean is one way of writing (UTS #39). */
function mixedScripts (word: string): string[] | undefined {
  const { common, seen } = scriptsOfWord(word)
  if (common === null || common.length > 0) return undefined
  // Some letter is not Latin (else all would share it): the others have scripts in common, or none.
  const others = scriptsOfWord(word, 'Latin').common as string[]
  return others.some(system => system === 'Japanese' || system === 'Korean' || system === 'Chinese') ? undefined : seen
}

/** The name, trimmed, or why it is refused. Bidirectional controls would turn the text around it (the board's
 * short id among it); a lone surrogate is no character, and no XML can carry it. */
export function checkName (value: unknown): { name: string } | { refused: string } {
  if (typeof value !== 'string') return { refused: `name must be a string of 1 to ${MAX_NAME} characters, got ${value === null ? 'null' : typeof value}` }
  const name = value.trim()
  const points = [...name]
  const length = points.length
  if (length === 0) return { refused: 'name must not be empty (or only spaces)' }
  if (length > MAX_NAME) return { refused: `name must be at most ${MAX_NAME} characters, got ${length}` }
  if (/\p{Cc}/u.test(name)) return { refused: 'name must not contain control characters (tabs, line breaks, …)' }
  if (/\p{Bidi_Control}/u.test(name)) return { refused: 'name must not contain bidirectional controls (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069)' }
  if (/\p{Cs}/u.test(name)) return { refused: 'name must not contain lone surrogates' }
  const apart = SEPARATOR.exec(name)
  if (apart !== null) return { refused: `name must not contain ${apart[0] === '\u2028' ? 'a line separator (U+2028)' : 'a paragraph separator (U+2029)'}: it breaks the line of the board` }
  const annotation = ANNOTATION.exec(name)
  if (annotation !== null) return { refused: `name must not contain interlinear annotation characters (${codeOf(annotation[0])})` }
  const space = OTHER_SPACE.exec(name)
  if (space !== null) return { refused: `name must use plain spaces, not ${codeOf(space[0])} at character ${[...name.slice(0, space.index)].length + 1} (a no-break, thin, hair, figure or other space)` }
  const stacked = STACKED_MARKS.exec(name)
  if (stacked !== null) return { refused: `name must not stack more than ${MAX_MARKS} combining marks on one character (${[...stacked[0]].length} at character ${[...name.slice(0, stacked.index)].length}): they smear over the text around it` }
  const hidden = points.findIndex((point, i) => INVISIBLE.test(point) && !joins(points, i))
  if (hidden !== -1) {
    const code = (points[hidden] as string).codePointAt(0) as number
    return { refused: `name must not contain characters that show as nothing (U+${code.toString(16).toUpperCase().padStart(4, '0')} at character ${hidden + 1}): zero-width spaces and joiners, fillers, blanks, tag characters` }
  }
  if (!/[\p{L}\p{N}\p{P}\p{S}]/u.test(name)) return { refused: 'name must show something: it has no letter, digit, punctuation or symbol' }
  for (const word of name.split(/[\p{Z}\p{P}\p{S}]+/u)) {
    const mixed = mixedScripts(word)
    if (mixed !== undefined) {
      return { refused: `name must not mix scripts within a word (${JSON.stringify(word)} has ${mixed.join(' and ')} letters): look-alike letters pass for another name` }
    }
  }
  return { name }
}
