// Note truncation by code points: a surrogate pair counts as one character and is never split.

/**
 * A copy of `text` that shares no memory with the string it was cut from: a note sliced out of a
 * 16 KiB body would otherwise keep the whole body alive for as long as the session lives.
 */
export function detached (text: string): string {
  return JSON.parse(JSON.stringify(text)) as string
}

/** `text` cut to at most `max` code points; a cut one is detached from `text`, which it would keep alive. */
export function truncate (text: string, max: number): string {
  // A string's code points never outnumber its UTF-16 units.
  if (text.length <= max) return text
  let points = 0
  for (let i = 0; i < text.length; i++) {
    if (points === max) return detached(text.slice(0, i))
    points++
    const unit = text.charCodeAt(i)
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) i++
    }
  }
  return text
}
