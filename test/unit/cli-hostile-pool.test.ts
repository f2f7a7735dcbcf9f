/**
 * A pool file someone sent (`agentworld export --pool theirs.duckdb`): its views run inside our queries, so they are
 * bound by the engine lock (src/cli/engine-lock.ts) from the first statement on — also the queries the CLI runs while
 * it opens the pool (the schema, the interrupted-import check), before any command's own SQL.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { sqlString } from '../../src/pool/sql';
import { scratchDir } from '../scratch.mjs';

const tmp = scratchDir('aw-hostile-pool-');

function cli(...args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/agentworld.mjs', ...args], { maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr });
    });
  });
}

describe('a hostile pool file', () => {
  it('a view that reads a local file reads nothing, also while the pool is being opened', async () => {
    const secret = join(tmp, 'secret.txt');
    writeFileSync(secret, 'HOSTILE-POOL-READ-ME\n');
    const pool = join(tmp, 'theirs.duckdb');
    const db = await DuckDBInstance.create(pool);
    const c = await db.connect();
    // `imports` is what the CLI reads first when it opens a pool (imports left running); error() puts the file's text in the message
    await c.run(
      `CREATE VIEW imports AS SELECT 1::INTEGER AS import_id, error('LEAKED ' || content) AS file, NULL::VARCHAR AS source_id, NULL::VARCHAR AS format,
       NULL::DOUBLE AS confidence, NULL::BIGINT AS bytes, NULL::INTEGER AS records, NULL::INTEGER AS rows_made, NULL::INTEGER AS rows_added,
       NULL::INTEGER AS rejected, 'running' AS status, NULL::VARCHAR AS message, NULL::TIMESTAMP AS started_at, NULL::TIMESTAMPTZ AS finished_at
       FROM read_text(${sqlString(secret)})`,
    );
    c.closeSync();
    db.closeSync();
    const r = await cli('export', '--pool', pool, '--layout', 'steps', '--out', join(tmp, 'out'));
    assert.ok(!r.out.includes('HOSTILE-POOL-READ-ME'), `the file was read: ${r.out}`);
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /Permission Error: Cannot access file/);
  });
});
