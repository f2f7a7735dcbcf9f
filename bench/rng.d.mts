/** A generator of numbers in [0, 1) from `seed` (mulberry32). */
export function rng(seed: number): () => number;
