/** Roving-tabindex keys of a tab list (WAI-ARIA tabs pattern). */
/** Where an arrow / Home / End key moves in a tab list of `n` from `i`; null for other keys. */
export function rovingIndex(key: string, i: number, n: number): number | null {
  if (key === 'ArrowRight') return (i + 1) % n;
  if (key === 'ArrowLeft') return (i + n - 1) % n;
  if (key === 'Home') return 0;
  if (key === 'End') return n - 1;
  return null;
}
