/** A command-line flag's whole-number value, or a readable failure naming the flag. */
export function positiveInt(name: string, value: string, min = 1): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer >= ${min}, got ${value}`);
  return n;
}
