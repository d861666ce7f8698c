// A positive whole-number setting from the environment, for the bench and soak scripts.
export function setting (name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback)
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a positive whole number`)
  return value
}
