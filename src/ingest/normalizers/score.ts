/**
 * Detection helper: the mean of per-record scores over a sample, skipping records a format has no
 * opinion on (`null`, e.g. a `[DONE]` line). Returns 0 when no record scored.
 */
export function scoreSample(sample: readonly unknown[], score: (v: unknown) => number | null): number {
  let sum = 0;
  let n = 0;
  let hits = 0;
  for (const v of sample) {
    const s = score(v);
    if (s === null) continue;
    n++;
    sum += s;
    if (s > 0) hits++;
  }
  return n === 0 || hits === 0 ? 0 : sum / n;
}
