/** The curation API as window.workbench exposes it. */
import type { PoolClient } from '../pool/client';
import type { MinHashOptions, NearDuplicate } from './minhash';
import { type CurationPatch, type CurationResult, curationStore } from './store';

export type { CurationPatch, CurationResult, CurationTarget } from './store';
export { CurationStore, curationStore } from './store';

/** Label steps by id: quality, trainable, tags, note (undoable from the review view). */
export function setCuration(pool: PoolClient, stepIds: readonly string[], patch: CurationPatch): Promise<CurationResult> {
  if (!Array.isArray(stepIds)) throw new TypeError('setCuration(stepIds, patch): stepIds must be an array of step_id strings');
  return curationStore(pool).apply({ stepIds: stepIds.map(String) }, patch);
}

/** Label every step the predicate (over `steps s LEFT JOIN curation c`) selects. */
export function setCurationWhere(pool: PoolClient, where: string, patch: CurationPatch): Promise<CurationResult> {
  return curationStore(pool).apply({ where }, patch);
}

/** The near-duplicate worker's protocol (workers/minhash.worker.ts hosts minhash.ts `minHashWorkerApi`). */
export interface MinHashWorkerApi {
  /** Arrow IPC of (step_id, text) in, the near-duplicate pairs out. */
  run(ipc: Uint8Array, opts: MinHashOptions): NearDuplicate[];
}
