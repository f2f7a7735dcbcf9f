import type { Normalizer } from './normalizer';
import { NORMALIZERS } from './normalizers';
import { generic } from './normalizers/generic';

export interface Detection {
  normalizer: Normalizer<unknown>;
  confidence: number;
  /** Every candidate's score by normalizer id, for the import report. */
  scores: Record<string, number>;
}

/** Below this the best guess is not trusted and records are kept as generic rows. */
export const MIN_CONFIDENCE = 0.2;

/** A candidate's score: 0 when its detector throws or returns NaN, an infinity or a negative number. */
function scoreOf(n: Normalizer<unknown>, sample: readonly unknown[]): number {
  try {
    const s = n.detect(sample);
    return Number.isFinite(s) ? Math.max(0, s) : 0;
  } catch {
    return 0;
  }
}

/** Sniff a sample of parsed records (content only, never the file name); ties go to the earlier normalizer. */
export function detectFormat(sample: readonly unknown[], candidates: readonly Normalizer<unknown>[] = NORMALIZERS): Detection {
  const scores: Record<string, number> = {};
  // starts at score 0, under the floor: kept only if some candidate scores at least MIN_CONFIDENCE
  let best = { normalizer: generic as Normalizer<unknown>, score: 0 };
  for (const n of candidates) {
    const s = scoreOf(n, sample);
    scores[n.id] = s;
    if (s > best.score) best = { normalizer: n, score: s };
  }
  if (best.score < MIN_CONFIDENCE) return { normalizer: generic as Normalizer<unknown>, confidence: generic.detect(sample), scores };
  return { normalizer: best.normalizer, confidence: best.score, scores };
}
