// Names that look like a setting but are not one, otherwise ignored in silence: an environment
// variable (PROT for PORT: the server listens on 3000) or a plugin option (`pasword`: the default
// password stays on). In the environment, nothing else is judged: a name is named only when it is
// two edits from a long setting, one from a short one but for a changed letter (NODE, which npm
// sets, is not MODE; HOME is not HOST), or a setting's name in another case.

/**
 * Edits (insert, delete, change, or swap two neighbours) that turn `a` into `b`, up to `most`;
 * most + 1 when more. (The optimal string alignment distance.) A change counts `change`.
 */
export function edits (a: string, b: string, most: number, change = 1): number {
  if (Math.abs(a.length - b.length) > most) return most + 1
  let before: number[] = []
  let row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const next = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : change
      let d = Math.min((row[j] as number) + 1, (next[j - 1] as number) + 1, (row[j - 1] as number) + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, (before[j - 2] as number) + 1)
      next.push(d)
    }
    before = row
    row = next
  }
  return Math.min(row[b.length] as number, most + 1)
}

/** Whether `name` (in capitals) is near enough `setting` to be taken for it: see above. */
const near = (name: string, setting: string): boolean =>
  setting.length <= 5 ? edits(name, setting, 1, 2) <= 1 : edits(name, setting, 2) <= 2

/**
 * For each name in `env` that is not a setting but looks like one of `settings`, the line that says
 * so ("PROT is not a setting; did you mean PORT?"), in the environment's order.
 */
export function misspeltSettings (env: Iterable<string>, settings: readonly string[]): string[] {
  const known = new Set(settings)
  const lines: string[] = []
  for (const name of env) {
    if (known.has(name)) continue
    const upper = name.toUpperCase()
    const meant = settings.find(setting => setting === upper) ??
      settings.find(setting => near(upper, setting))
    if (meant !== undefined) lines.push(`${name} is not a setting; did you mean ${meant}?`)
  }
  return lines
}

/**
 * The name in `names` that `name` was probably meant to be, ignoring case: the nearest within a
 * third of its length (at least one edit); undefined when none is that near. For unknown options.
 */
export function nearest (name: string, names: readonly string[]): string | undefined {
  const most = Math.max(1, Math.floor(name.length / 3))
  let best: string | undefined
  let fewest = most + 1
  for (const known of names) {
    const count = edits(name.toLowerCase(), known.toLowerCase(), most)
    if (count < fewest) {
      best = known
      fewest = count
    }
  }
  return best
}
