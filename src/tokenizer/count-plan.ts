/**
 * How many workers a token count uses (TokenizerService.count): the main tokenizer worker, which holds the profile
 * already, and helpers, each of which must first load the whole profile (the bundled Qwen3's 11 MB tokenizer.json).
 */

/**
 * A step's content in bytes as the tokenizer worker's pendingBytes() sums it over the steps still to count: its messages,
 * response and tools as text (a message's struct printed whole, field names and all). BYTES_PER_HELPER is in these
 * bytes; bench/tokens-helper.mjs reads this line and measures a worker's count rate with it.
 */
export const CONTENT_BYTES_SQL = 'coalesce(strlen(CAST(messages AS VARCHAR)), 0) + coalesce(strlen(CAST(response AS VARCHAR)), 0) + coalesce(strlen(tools), 0)';

/**
 * Pending content bytes (CONTENT_BYTES_SQL) per helper worker worth starting.
 *
 * Measured by bench/tokens-helper.mjs (headless Chromium with the app's flags, test build, on a 2-core machine shared
 * with other jobs, load average 3.5–5, 2026-12-06):
 * - load: a new worker made ready with the bundled Qwen3 profile (worker start, the 11 MB tokenizer.json fetched and
 *   parsed): 1.00–1.51 s wall, 1.04–1.47 CPU-s (6 runs, median ≈ 1.3);
 * - rate: one worker counting the bench's generated multi-turn files (2,378 steps / 5.15 MB of content, 4,792 / 10.3 MB,
 *   9,529 / 20.3 MB): 1.7–3.6 MB/s of wall, median ≈ 2.7 MB/s (2.0–4.4 MB/s of CPU); the demo data (233 steps,
 *   0.23 MB) 0.6–0.9 MB/s, on a worker not yet warmed up;
 * - a helper's real cost: the same files counted by two workers took 2.0 / 3.4 CPU-s (10.3 MB) and 2.7 CPU-s
 *   (20.3 MB) more than by one: its load, plus its own warm-up and its shard's queries, ≈ 2.7 CPU-s.
 *
 * A helper costs that in CPU (and a copy of the tokenizer in memory) whatever it counts, and in wall time its load:
 * the helpers are made ready before any shard starts. With W bytes at rate r and a helper's cost L, one worker takes
 * W / r, two take L + W / (2r) on a free core: the helper pays only past W = 2·r·L ≈ 2 × 2.7 MB/s × 2.7 s ≈ 15 MB.
 * (On the shared 2-core machine, with no core free, two workers were slower still at 20.3 MB: 8.7 s against 5.6 s.)
 * The demo data and the test pools (well under 1 MB) are counted by the main worker alone.
 */
export const BYTES_PER_HELPER = 15_000_000;

/**
 * The workers to count `pendingBytes` of content with: 1 (the main worker alone) plus one helper per `bytesPerHelper`,
 * up to `all` (countWorkers()). Nothing pending starts no helper.
 */
export function countingWorkerCount(pendingBytes: number, all: number, bytesPerHelper = BYTES_PER_HELPER): number {
  // Stryker disable next-line EqualityOperator: one worker in all gives 1 + min(0, helpers) = 1 below too
  if (!(pendingBytes > 0) || all <= 1) return 1;
  // Stryker disable next-line EqualityOperator: no threshold (0) divides to Infinity, as the other branch gives
  const helpers = bytesPerHelper > 0 ? Math.floor(pendingBytes / bytesPerHelper) : Number.POSITIVE_INFINITY;
  return 1 + Math.min(all - 1, helpers);
}

/**
 * The bytes a count must know to choose its workers (countingWorkerCount gives the same answer for any sum past it):
 * enough for every helper `all` allows, and at least one byte, so that nothing pending is still told apart.
 */
export function bytesToDecide(all: number, bytesPerHelper = BYTES_PER_HELPER): number {
  return Math.max(1, bytesPerHelper * (all - 1));
}

/** The pending steps the first read of their content bytes takes (readUpTo); the next reads take more. */
export const FIRST_READ = 4096;

/**
 * The pending steps' content bytes a count needs to choose its workers: `read(limit)` sums the content of up to `limit`
 * pending steps and says how many it read. Reads grow until the sum reaches `upTo`
 * (bytesToDecide) or the steps run out: the whole sum when it is smaller, else some sum at least `upTo`. Summing every
 * pending step (each one's content cast to text) took ≈ 0.7 s of a 100 MB count (79,261 steps, 168 MB of content) for a
 * choice made at 15 MB; two reads of 4,096 and ≈ 8,800 steps decide it.
 */
export async function readUpTo(read: (limit: number) => Promise<{ bytes: number; steps: number }>, upTo: number): Promise<number> {
  let limit = FIRST_READ;
  for (;;) {
    const { bytes, steps } = await read(limit);
    if (steps < limit || bytes >= upTo) return bytes;
    // as many more steps as this read's mean says reach upTo, with a margin; at least twice, at most 16 times as many
    // (16 when it read no byte at all)
    limit = Math.ceil(limit * Math.min(16, Math.max(2, (1.25 * upTo) / bytes)));
  }
}
