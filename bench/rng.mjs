// mulberry32: a small, fast seeded generator, good enough for synthetic data and randomized tests — the same seed
// gives the same sequence, so a bench file or a failing test input can be made again. Shared by bench/gen.mjs,
// bench/coi/page.ts and the unit tests.

/** A generator of numbers in [0, 1) from `seed`. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
