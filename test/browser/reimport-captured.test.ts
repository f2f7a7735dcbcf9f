// Issue 20 survivor 1: steps the gateway captured have no import_id (NULL). Re-importing them from a
// `steps` export must add nothing: the commit's anti-join has to see NULL import_id rows as "already
// in the pool" (`import_id IS DISTINCT FROM x`; `import_id <> x` drops them and duplicates every one).
import { expect } from '@esm-bundle/chai';
import { callToStep } from '../../src/gateway/core/to-step';
import { stepsToIPC } from '../../src/ingest/step-arrow';
import { exporterFor, fixture, importerFor, startPool } from './helpers';

function captured(traj: string, i: number) {
  const t = Date.UTC(2026, 2, 1, 12, 0, i);
  return callToStep({
    trajectory_uid: traj, prompt_uid: `p-${traj}`, step_index: i, api: 'chat', provider: 'mock', upstream: 'mock', stream: false, model: 'mock',
    messages: [{ role: 'user', content: `What is ${i} + ${i}?` }], tools: null, request: { model: 'mock' },
    responseBody: { id: `chatcmpl-${traj}-${i}`, choices: [{ message: { role: 'assistant', content: String(2 * i) } }] },
    assembled: { id: `chatcmpl-${traj}-${i}`, model: 'mock', message: { role: 'assistant', content: String(2 * i) }, finish_reason: 'stop', prompt_tokens: 9, completion_tokens: 1, prompt_ids: null, response_ids: null, log_probs: null, error: null },
    http_status: 200, error: null, aborted: false, started_at: t, ended_at: t + 5, latency_ms: 5, ttft_ms: null,
    state: null,
  });
}

describe('re-import of gateway-captured steps', () => {
  it('a steps export of captured calls (NULL import_id) re-imports with no duplicates', async () => {
    const pool = await startPool('reimport-captured', true);
    try {
      // imported rows (with an import_id) beside captured ones (without), as in a real pool
      const [first] = await importerFor(pool).importFiles([await fixture('core/chat.jsonl')]);
      expect(first.status, first.message ?? '').to.equal('done');
      const steps = [captured('cap-a', 0), captured('cap-a', 1), captured('cap-b', 0)];
      const bytes = stepsToIPC(steps);
      await pool.upsertSteps(bytes);
      const before = await pool.rows(`SELECT count(*)::INTEGER AS n, count(*) FILTER (WHERE import_id IS NULL)::INTEGER AS nulls FROM steps`);
      expect(before[0].nulls).to.equal(3);

      for (const format of ['jsonl', 'parquet'] as const) {
        const blob = await exporterFor(pool).exportDataset({ layout: 'steps', format, trainableOnly: false });
        const [rep] = await importerFor(pool).importFiles([new File([blob], `steps.${format}`)]);
        // nothing new: the report says 'unchanged — already imported' (decision 011), never 'done'
        expect(rep.status, rep.message ?? '').to.equal('unchanged');
        expect(rep.alreadyInPool, format).to.equal(before[0].n);
        expect(rep.rows, format).to.equal(before[0].n);
        expect(rep.added, `${format}: rows added on re-import`).to.equal(0);
        const after = await pool.rows(`SELECT count(*)::INTEGER AS n, count(DISTINCT step_id)::INTEGER AS ids FROM steps`);
        expect(after[0], format).to.deep.equal({ n: before[0].n, ids: before[0].n });
        const cap = await pool.rows(`SELECT count(*)::INTEGER AS n FROM steps WHERE trajectory_uid IN ('cap-a', 'cap-b')`);
        expect(cap[0].n, format).to.equal(3);
      }
    } finally {
      pool.terminate();
    }
  });
});
