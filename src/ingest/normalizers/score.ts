/**
 * Detection helper: the mean of per-record scores over a sample, skipping records a format has no
 * opinion on (`null`, e.g. a `[DONE]` line). Returns 0 when no record scored. Scores are >= 0, so a
 * sample of zeros means 0 too.
 */
export function scoreSample(sample: readonly unknown[], score: (v: unknown) => number | null): number {
  let sum = 0;
  let n = 0;
  for (const v of sample) {
    const s = score(v);
    if (s === null) continue;
    n++;
    sum += s;
  }
  return n ? sum / n : 0;
}
