/// <reference lib="webworker" />
/** Near-duplicate detection off the main thread: Arrow IPC (step_id, text) in, duplicate rows out. */
import { tableFromIPC } from 'apache-arrow';
import * as Comlink from 'comlink';
import { type MinHashOptions, type NearDuplicate, nearDuplicates } from '../src/curation/minhash';

const api = {
  run(ipc: Uint8Array, opts: MinHashOptions): NearDuplicate[] {
    const t = tableFromIPC(ipc);
    const ids = t.getChild('step_id');
    const texts = t.getChild('text');
    const items: { id: string; text: string }[] = [];
    for (let i = 0; i < t.numRows; i++) items.push({ id: String(ids?.get(i)), text: String(texts?.get(i) ?? '') });
    return nearDuplicates(items, opts);
  },
};

export type MinHashWorkerApi = typeof api;
Comlink.expose(api);
