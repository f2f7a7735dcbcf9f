// The worker bench/reader-browser.mjs starts: the reader's stage passes (reader-stages-core.ts) over a File, timed by
// the worker's clock (wall time: a page has no CPU clock).
import { runPasses, stagePasses } from './reader-stages-core';

/** On the page's main thread (--main, for a CPU profile over CDP), the same run as the worker's. */
(globalThis as { runStages?: unknown }).runStages = async (file: File, reps: number) => runPasses(stagePasses(new Uint8Array(await file.arrayBuffer()), file.name), reps, () => performance.now());

self.onmessage = async (e: MessageEvent<{ file: File; reps: number; only: number | null }>) => {
  const { file, reps, only } = e.data;
  const bytes = new Uint8Array(await file.arrayBuffer());
  const passes = stagePasses(bytes, file.name);
  const r = await runPasses(only === null ? passes : [passes[only]], reps, () => performance.now());
  postMessage(r);
};
