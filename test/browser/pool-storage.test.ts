/**
 * New pools are created at DuckDB storage version v1.4.0 (docs/decisions/049): the file says so, its long strings
 * are compressed (a step's whole source record, repeated by each step of a record, is what made a pool 3.6× its
 * input), and it keeps working across reloads — including a write after a checkpoint (the WAL fix of decision 010). Its
 * own files stay closed to SQL's file functions (issue 17 hole 5), new and reopened; checked on the same pools (a boot
 * is the costliest step of a browser test). Compaction, and a crash at any point of it, on one chain of reopens.
 */
import { expect } from '@esm-bundle/chai';
import { PoolClient } from '../../src/pool/client';
import { importerFor, poolWorker, wasm } from './helpers';

const open = (poolName: string) => PoolClient.start({ poolName, wasm, worker: poolWorker });

/** A chat log whose lines are long and mostly distinct (~6 KB each), two LLM calls per line: every record is the `raw` of two steps. */
function chatFile(lines: number): File {
  let seed = 7;
  const word = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return ['tool', 'result', 'agent', 'plan', 'file', 'patch', 'error', 'retry', 'search', 'answer'][seed % 10] + (seed % 997);
  };
  const text = (n: number) => Array.from({ length: n }, word).join(' ');
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const call = { id: `call_${i}`, type: 'function', function: { name: 'search', arguments: JSON.stringify({ q: text(8) }) } };
    out.push(
      JSON.stringify({
        messages: [
          { role: 'system', content: text(150) },
          { role: 'user', content: text(200) },
          { role: 'assistant', content: null, tool_calls: [call] },
          { role: 'tool', tool_call_id: call.id, content: text(300) },
          { role: 'assistant', content: text(100) },
        ],
      }),
    );
  }
  return new File([out.join('\n')], 'long-chat.jsonl', { type: 'application/x-ndjson' });
}

/** SQL that tries to read the pool's own database file or WAL (issue 17 hole 5): each must be refused. */
const attempts = (name: string) => [
  `SELECT * FROM read_blob('opfs://${name}.db')`,
  `SELECT * FROM read_blob('opfs://${name}.db.wal')`,
  `SELECT * FROM read_text('opfs://${name}.db')`,
  `SELECT * FROM read_text('opfs://${name}.db.wal')`,
  `SELECT * FROM read_blob('opfs:/' || '/${name}.db')`,
  `SELECT * FROM read_csv('opfs://${name}.db', all_varchar = true)`,
  `SELECT * FROM read_blob('opfs://*')`,
  `SELECT * FROM read_blob('opfs://${name}.d?')`,
  `SELECT * FROM read_blob('opfs://**/*.wal')`,
];
async function refused(pool: PoolClient, name: string): Promise<void> {
  for (const sql of attempts(name)) {
    const r = await pool.rows(sql).then((rows) => `rows: ${rows.length}`, (e) => String(e));
    expect(r, sql).to.match(/Permission Error|cannot read the pool/);
  }
}

describe('pool storage version', function () {
  this.timeout(180_000);
  it('a new pool is created at storage version v1.4.0, compresses long strings, and keeps every write across reloads; its files stay closed to SQL, new and reopened', async () => {
    const name = `storage-${Date.now()}`;
    const file = chatFile(400);
    let pool = await open(name);
    expect(pool.status.persistent).to.equal(true);
    await refused(pool, name);
    const version = async (p: PoolClient) => (await p.rows(`SELECT tags['storage_version']::VARCHAR AS v FROM duckdb_databases() WHERE NOT internal`))[0].v;
    expect(await version(pool)).to.equal('v1.4.0+');
    const [report] = await importerFor(pool).importFiles([file]);
    expect(report.status).to.equal('done');
    await pool.checkpoint();
    const [size] = await pool.rows(`SELECT count(*)::INTEGER AS steps, sum(strlen(raw))::BIGINT AS raw FROM steps`);
    expect(size.steps).to.equal(800);
    // every step carries its record: the raw text alone is twice the file
    expect(Number(size.raw)).to.be.greaterThan(1.9 * file.size);
    const [blocks] = await pool.rows(`SELECT used_blocks * block_size AS b FROM pragma_database_size()`);
    // at v0.10.2 this file took 3.4 bytes per input byte (raw stored uncompressed); at v1.4.0 it takes under 1.5
    expect(Number(blocks.b) / file.size).to.be.lessThan(1.5);
    const compression = await pool.rows(`SELECT DISTINCT compression FROM pragma_storage_info('steps') WHERE column_name = 'raw' AND segment_type = 'VARCHAR'`);
    expect(compression.map((r) => r.compression)).to.not.include('Uncompressed');
    const before = await pool.rows(`SELECT hash(list(s ORDER BY step_id))::VARCHAR AS h FROM steps s`);
    // a write after the checkpoint: it lives in the WAL only
    await pool.exec(`UPDATE steps SET model = 'after-checkpoint' WHERE step_index = 0`);
    pool.terminate();

    pool = await open(name);
    expect(await version(pool)).to.equal('v1.4.0+');
    // reopened with data in both the database file and the WAL
    await refused(pool, name);
    expect((await pool.rows(`SELECT count(*)::INTEGER AS n FROM steps WHERE model = 'after-checkpoint'`))[0].n).to.equal(400);
    await pool.exec(`UPDATE steps SET model = NULL WHERE model = 'after-checkpoint'`);
    expect(await pool.rows(`SELECT hash(list(s ORDER BY step_id))::VARCHAR AS h FROM steps s`)).to.deep.equal(before);
    pool.terminate();

    pool = await open(name);
    expect(await pool.rows(`SELECT hash(list(s ORDER BY step_id))::VARCHAR AS h FROM steps s`)).to.deep.equal(before);
    pool.terminate();
  });
});

// A pool made before decision 049, then compacted, then the compacted pool's files as a crash leaves them: one chain of
// reopens (a boot is the costliest step here), each `it` on the state the one before left.
describe('pools made before, compacted, and a crash at any point of a compaction', function () {
  this.timeout(240_000);
  const root = () => navigator.storage.getDirectory();
  const copyFile = async (from: string, to: string) => {
    const data = await (await (await (await root()).getFileHandle(from)).getFile()).arrayBuffer();
    const w = await (await (await root()).getFileHandle(to, { create: true })).createWritable();
    await w.write(data);
    await w.close();
  };
  const listed = async (prefix: string) => {
    const names: string[] = [];
    for await (const k of ((await root()) as unknown as { keys(): AsyncIterable<string> }).keys()) if (k === `${prefix}.db` || k.startsWith(`${prefix}.db.`) || k.startsWith(`${prefix}.compact`)) names.push(k);
    return names.sort();
  };
  const count = async (p: PoolClient) => Number((await p.rows("SELECT count(*)::INTEGER AS n FROM steps"))[0].n);
  const version = async (p: PoolClient) => (await p.rows(`SELECT tags['storage_version']::VARCHAR AS v FROM duckdb_databases() WHERE NOT internal`))[0].v;
  const everything = async (p: PoolClient) => {
    const tables = (await p.rows(`SELECT table_name AS t FROM duckdb_tables() WHERE schema_name = 'main' ORDER BY 1`)).map((r) => String(r.t));
    const out: Record<string, unknown> = {};
    for (const t of tables) out[t] = (await p.rows(`SELECT count(*)::INTEGER AS n, sum(hash(x))::VARCHAR AS h FROM "${t}" x`))[0];
    out.views = (await p.rows(`SELECT view_name AS v, sql FROM duckdb_views() WHERE NOT internal ORDER BY 1`)).map((r) => r.v);
    return out;
  };
  const name = `legacy-${Date.now()}`;
  /** The legacy pool, open after its last reopen: the compaction test compacts it. */
  let legacy: PoolClient | null = null;
  /** The compacted pool's steps, its file left checkpointed and closed: the late crash's "checked copy" is a copy of it. */
  let compacted: number | null = null;

  it('a pool at the old default (v0.10.2, as every build before decision 049 made) keeps its format, its data and every write across reloads', async () => {
    let pool = await PoolClient.start({ poolName: name, wasm, worker: poolWorker, legacyStorage: true });
    expect(await version(pool)).to.equal('v1.0.0+');
    const [report] = await importerFor(pool).importFiles([chatFile(40)]);
    expect(report.status).to.equal('done');
    await pool.checkpoint();
    await pool.exec(`UPDATE steps SET model = 'in-the-wal' WHERE step_index = 1`);
    const before = await pool.rows(`SELECT hash(list(s ORDER BY step_id))::VARCHAR AS h, count(*)::INTEGER AS n FROM steps s`);
    pool.terminate();

    // this build opens it: the same format, the same rows, and it still commits (an import, then a label after a checkpoint)
    pool = await open(name);
    expect(await version(pool)).to.equal('v1.0.0+');
    expect(await pool.rows(`SELECT hash(list(s ORDER BY step_id))::VARCHAR AS h, count(*)::INTEGER AS n FROM steps s`)).to.deep.equal(before);
    const [again] = await importerFor(pool).importFiles([chatFile(41)]);
    expect(again.status).to.equal('done');
    expect(again.added).to.equal(82);
    await pool.exec(`INSERT INTO curation (step_id, quality) SELECT step_id, 'good' FROM steps WHERE model = 'in-the-wal'`);
    pool.terminate();

    pool = await open(name);
    expect(await version(pool)).to.equal('v1.0.0+');
    expect((await pool.rows(`SELECT count(*)::INTEGER AS n FROM steps`))[0].n).to.equal(162);
    expect((await pool.rows(`SELECT count(*)::INTEGER AS n FROM curation WHERE quality = 'good'`))[0].n).to.equal(40);
    legacy = pool;
  });

  it('compacting rewrites it at v1.4.0 with every table, view, label and sequence; gives back what deletes left; the next import gets a new id; a copy left unchecked by a crash is dropped at the next start', async () => {
    if (!legacy) throw new Error('needs the legacy pool of the test before');
    let pool = legacy;
    const [a] = await importerFor(pool).importFiles([chatFile(300)]);
    expect(a.status).to.equal('done');
    await pool.exec(`INSERT INTO curation (step_id, quality) SELECT step_id, 'good' FROM steps WHERE step_index = 0 AND step_id NOT IN (SELECT step_id FROM curation) LIMIT 50`);
    // all but 300 steps deleted: the file keeps its size
    await pool.exec(`DELETE FROM steps WHERE step_id IN (SELECT step_id FROM steps ORDER BY step_id LIMIT (SELECT count(*) - 300 FROM steps))`);
    await pool.checkpoint();
    expect(await count(pool)).to.equal(300);
    const before = await everything(pool);
    expect(await version(pool)).to.equal('v1.0.0+');

    const sequence = async (p: PoolClient) => Number((await p.rows(`SELECT last_value AS v FROM duckdb_sequences() WHERE sequence_name = 'import_seq'`))[0].v);
    const seqBefore = await sequence(pool);
    const done = await pool.compact();
    // the copy's sequence may start one further on (DuckDB recreates it from its next value): never lower
    expect(await sequence(pool)).to.be.at.least(seqBefore);
    expect(done.storageVersion).to.equal('v1.4.0');
    expect(done.tables).to.include.members(['steps', 'curation', 'imports', 'pool_meta']);
    expect(done.bytesAfter).to.be.lessThan(done.bytesBefore / 2);
    expect(await version(pool)).to.equal('v1.4.0+');
    expect(await everything(pool)).to.deep.equal(before);
    // no copy left behind
    expect(await listed(name)).to.deep.equal([`${name}.db`, `${name}.db.wal`]);
    // still a working pool, and its import ids go on
    const [b] = await importerFor(pool).importFiles([chatFile(301)]);
    expect(b.status).to.equal('done');
    expect(b.importId).to.be.greaterThan(a.importId ?? Number.POSITIVE_INFINITY);
    // a write after the import, in the WAL only: a start that took the planted copy below would drop that WAL
    await pool.exec(`INSERT INTO curation (step_id, quality) SELECT step_id, 'bad' FROM steps WHERE step_id NOT IN (SELECT step_id FROM curation) ORDER BY step_id DESC LIMIT 3`);
    const after = await everything(pool);
    pool.terminate();

    // a crash during a later compaction's COPY FROM DATABASE, before the copy was checked (no marker): a half-written
    // copy and its WAL; the next start drops them, and the pool is the old file with its WAL
    await copyFile(`${name}.db`, `${name}.compact.db`);
    await copyFile(`${name}.db`, `${name}.compact.db.wal`);
    pool = await open(name);
    expect(await version(pool)).to.equal('v1.4.0+');
    expect(await everything(pool)).to.deep.equal(after);
    expect(await listed(name)).to.deep.equal([`${name}.db`, `${name}.db.wal`]);
    await pool.checkpoint();
    compacted = await count(pool);
    pool.terminate();
  });

  it('a crash after the copy was checked (marker written): the next start finishes the swap, whichever step the crash came after', async () => {
    if (compacted === null) throw new Error('needs the compacted pool of the test before');
    const late = `crash-late-${Date.now()}`;
    // the "checked copy" (the compacted pool's file) and its marker; the crash came after the old file was removed,
    // before the copy took its name: a start that did not finish the swap would make a new, empty pool
    await copyFile(`${name}.db`, `${late}.compact.db`);
    await (await (await (await root()).getFileHandle(`${late}.compact.ok`, { create: true })).createWritable()).close();
    const pool = await open(late);
    expect(await count(pool)).to.equal(compacted);
    expect(await listed(late)).to.deep.equal([`${late}.db`, `${late}.db.wal`]);
    pool.terminate();
  });
});
