/** Runs MinHash near-duplicate detection in a worker and stores the clusters in `near_duplicates`. */
import * as Comlink from 'comlink';
import type { PoolClient } from '../pool/client';
import type { MinHashWorkerApi } from './api';
import type { MinHashOptions } from './minhash';
import { sqlNumber, sqlString } from '../pool/sql';

export interface NearDuplicateOptions extends MinHashOptions {
  /** Creates the MinHash worker (default: workers/minhash.worker.ts, bundled by vite). */
  worker?: () => Worker;
}

export interface NearDuplicateResult {
  steps: number;
  clusters: number;
}

const CHUNK_CHARS = 48_000;

export async function findNearDuplicates(pool: PoolClient, opts: NearDuplicateOptions = {}): Promise<NearDuplicateResult> {
  const { worker: make, ...minhash } = opts;
  const w = make ? make() : new Worker(new URL('../../workers/minhash.worker.ts', import.meta.url), { type: 'module', name: 'minhash' });
  try {
    const api = Comlink.wrap<MinHashWorkerApi>(w);
    const ipc = await pool.queryIPC(`SELECT step_id, conversation_text(messages, response) AS text FROM steps`);
    const rows = await api.run(Comlink.transfer(ipc, [ipc.buffer]), minhash);
    const stmts: string[] = [];
    let cur = '';
    for (const r of rows) {
      const v = `(${sqlString(r.step_id)}, ${sqlString(r.cluster_id)}, ${sqlNumber(r.similarity)})`;
      if (cur && cur.length + v.length > CHUNK_CHARS) {
        stmts.push(cur);
        cur = '';
      }
      cur += cur ? `, ${v}` : v;
    }
    if (cur) stmts.push(cur);
    await pool.exec('BEGIN TRANSACTION; DELETE FROM near_duplicates;');
    try {
      for (const values of stmts) await pool.exec(`INSERT INTO near_duplicates VALUES ${values}`);
      await pool.exec('COMMIT');
    } catch (e) {
      await pool.exec('ROLLBACK').catch(() => {});
      throw new Error(`Storing near-duplicates failed, the previous results are kept: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    await pool.checkpoint();
    return { steps: rows.length, clusters: new Set(rows.map((r) => r.cluster_id)).size };
  } finally {
    w.terminate();
  }
}
