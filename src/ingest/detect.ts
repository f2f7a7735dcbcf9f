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

/** Sniff a sample of parsed records (content only, never the file name); ties go to the earlier normalizer. */
export function detectFormat(sample: readonly unknown[], candidates: readonly Normalizer<unknown>[] = NORMALIZERS): Detection {
  const scores: Record<string, number> = {};
  let best: Normalizer<unknown> | null = null;
  let bestScore = 0;
  for (const n of candidates) {
    let s = 0;
    try {
      s = n.detect(sample);
    } catch {
      s = 0;
    }
    if (!Number.isFinite(s) || s < 0) s = 0;
    scores[n.id] = s;
    if (s > bestScore) {
      best = n;
      bestScore = s;
    }
  }
  if (!best || bestScore < MIN_CONFIDENCE) return { normalizer: generic as Normalizer<unknown>, confidence: generic.detect(sample), scores };
  return { normalizer: best, confidence: bestScore, scores };
}
