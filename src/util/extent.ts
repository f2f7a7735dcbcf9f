/**
 * The smallest / largest of many numbers. `Math.min(...xs)` passes every value as an argument, and past about 100,000
 * of them V8 throws "Maximum call stack size exceeded": a loop has no such limit. Empty: Infinity / -Infinity, as
 * `Math.min()` / `Math.max()`.
 */
export function minOf(xs: Iterable<number>): number {
  let m = Number.POSITIVE_INFINITY;
  for (const x of xs) if (x < m || Number.isNaN(x)) m = x;
  return m;
}

export function maxOf(xs: Iterable<number>): number {
  let m = Number.NEGATIVE_INFINITY;
  for (const x of xs) if (x > m || Number.isNaN(x)) m = x;
  return m;
}
