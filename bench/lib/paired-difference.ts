/**
 * How sure a difference in recall is: the mean per-question difference between two rankings of
 * the same questions, with a 95% interval from a paired bootstrap over questions (resampled with
 * a fixed seed, so a run can be repeated). Questions of one conversation are not independent, so
 * the interval is, if anything, narrower than the truth: read a gain whose interval barely clears
 * zero as noise.
 */
export function pairedDifference(
  a: readonly number[],
  b: readonly number[],
  resamples = 2000,
): { mean: number; low: number; high: number } {
  const d = a.map((x, i) => x - b[i]!);
  const mean = d.reduce((s, x) => s + x, 0) / d.length;
  let seed = 0x9e3779b9;
  const next = () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
  const means = Array.from({ length: resamples }, () => {
    let s = 0;
    for (let i = 0; i < d.length; i++) s += d[Math.floor(next() * d.length)]!;
    return s / d.length;
  }).sort((x, y) => x - y);
  return { mean, low: means[Math.floor(0.025 * resamples)]!, high: means[Math.ceil(0.975 * resamples) - 1]! };
}
