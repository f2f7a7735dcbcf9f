/**
 * Shards of one listing, merged as one pool would have imported them (issue 22, decision 011 across shards).
 *
 * `import --shard i/n --steps-out DIR` writes the shard pool's steps as one Parquet file, and in its key-value
 * metadata which file of the listing each of its imports read. `merge` commits those imports again into one pool,
 * in the order of the whole listing, through the pool's own import commit (src/pool/import-commit.ts): a trace
 * split over files of two shards is joined, a trajectory id made by two files with other content is kept apart,
 * a step two shards both made is kept once, exactly as one `import` of the whole listing does.
 */
import { mkdirSync, renameSync } from 'node:fs';
import { basename, join } from 'node:path';
import { TRACE_ID_FORMATS } from '../ingest/pipeline';
import { describeSql, withoutMapsSql } from '../export/layouts';
import { sqlString } from '../pool/sql';
import type { CliImportResult } from './import';
import type { NativePool } from './native-pool';

/** The Parquet key-value metadata key that lists a shard file's imports. */
const KEY = 'agentworld_imports';

/** One import of a shard: the file it read (absolute path, as the sorted listing has it) and its id in the shard pool. */
export interface ShardImport {
  path: string;
  importId: number;
  format: string;
  confidence: number;
  records: number;
  rows: number;
}

/**
 * The pool's steps as one Parquet file per shard (`steps-<i>-of-<n>.parquet`, MAP columns as {key, value} lists,
 * the imports in the metadata), written under a temporary name and renamed: a retried shard replaces its file, so
 * it never adds rows twice.
 */
export async function writeShardSteps(pool: NativePool, dir: string, shard: string | undefined, result: CliImportResult | null): Promise<string> {
  const [i, n] = (shard ?? '0/1').split('/');
  const name = `steps-${i.padStart(5, '0')}-of-${n.padStart(5, '0')}.parquet`;
  const final = join(dir, name);
  const tmp = join(dir, `.${name}.${process.pid}.tmp`);
  mkdirSync(dir, { recursive: true });
  const imports: ShardImport[] = [];
  result?.reports.forEach((r, k) => {
    if (r.importId === null || !r.added) return;
    imports.push({ path: result.files[k], importId: r.importId, format: r.format, confidence: r.confidence, records: r.records, rows: r.rows });
  });
  const base = 'SELECT * FROM steps ORDER BY step_id';
  const sql = withoutMapsSql(base, await pool.rows(describeSql(base)));
  await pool.exec(`COPY (${sql}) TO ${sqlString(tmp)} (FORMAT parquet, COMPRESSION zstd, KV_METADATA {${KEY}: ${sqlString(JSON.stringify(imports))}})`);
  renameSync(tmp, final);
  return final;
}

/** The imports a shard file's metadata lists (none for a Parquet file not written by writeShardSteps). */
async function shardImports(pool: NativePool, file: string): Promise<ShardImport[]> {
  const rows = await pool.rows(`SELECT decode(value) AS v FROM parquet_kv_metadata(${sqlString(file)}) WHERE decode(key) = ${sqlString(KEY)}`);
  if (!rows.length) throw new Error(`${file} was not written by agentworld import --steps-out (no ${KEY} metadata)`);
  return JSON.parse(String(rows[0].v)) as ShardImport[];
}

export interface MergeResult {
  shards: string[];
  imports: number;
  added: number;
  /** What the commit said of the imports that met steps of other shards (joined traces, ids kept apart, steps already made). */
  messages: { file: string; message: string }[];
}

/**
 * The steps of shard files (globs or paths), committed into `pool` one import at a time in the order of the sorted
 * listing, each through the pool's import commit (the rows' shard-local is_last recomputed there, as for a fresh import).
 */
export async function mergeShardSteps(pool: NativePool, globs: readonly string[]): Promise<MergeResult> {
  const shards: string[] = [];
  for (const g of globs) for (const r of await pool.rows(`SELECT file FROM glob(${sqlString(g)}) ORDER BY file`)) shards.push(String(r.file));
  if (!shards.length) throw new Error(`no shard steps file matches ${globs.join(' ')}`);
  const all: (ShardImport & { shard: string })[] = [];
  for (const shard of shards) for (const imp of await shardImports(pool, shard)) all.push({ ...imp, shard });
  // the order one import of the whole listing reads the files in (listInputs: sorted absolute paths)
  all.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  let added = 0;
  const messages: MergeResult['messages'] = [];
  for (const imp of all) {
    const id = await pool.beginImport({ file: basename(imp.path), sourceId: '', bytes: 0 });
    try {
      await pool.appendSql(
        id,
        `SELECT * REPLACE (${id}::INTEGER AS import_id, NULL::BOOLEAN AS is_last, map_from_entries(metadata) AS metadata)
         FROM read_parquet(${sqlString(imp.shard)}) WHERE import_id = ${imp.importId | 0}`,
      );
      const [src] = await pool.rows(`SELECT any_value(source_id) AS s FROM read_parquet(${sqlString(imp.shard)}) WHERE import_id = ${imp.importId | 0}`);
      if (src?.s) await pool.setImportSource(id, String(src.s));
      const r = await pool.commitImport(id, {
        format: imp.format,
        confidence: imp.confidence,
        records: imp.records,
        rowsMade: imp.rows,
        errors: [],
        joinFormats: TRACE_ID_FORMATS,
      });
      added += r.rowsAdded;
      if (r.alreadyInPool || r.collisions.length) {
        const [m] = await pool.rows(`SELECT message FROM imports WHERE import_id = ${id}`);
        messages.push({ file: imp.path, message: String(m?.message ?? '') });
      }
    } catch (e) {
      await pool.abortImport(id, e instanceof Error ? e.message : String(e));
      throw e;
    }
  }
  return { shards, imports: all.length, added, messages };
}
