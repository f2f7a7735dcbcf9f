/**
 * The layouts' SQL as data, for engines outside this code base (examples/ray: DuckDB in each Ray group).
 * Generated from src/export/layouts.ts and the pool's schema, never written by hand: one SQL definition.
 */
import type { DatasetLayout } from '../contract/reports';
import { datasetSql, LAYOUTS, type LayoutOptions, resolveLayoutOptions } from '../export/layouts';
import { CURATION_HELPERS } from '../pool/curation-sql';
import { DDL } from '../pool/schema';
import type { NativePool } from './native-pool';

export interface LayoutBundle {
  /** Run first in an empty DuckDB: the pool's curation table (empty) and SQL helpers. */
  prelude: string[];
  /** Turn a table `steps_in` (the steps Parquet: MAP columns as {key, value} lists) into the pool's `steps`. */
  load: string;
  /** Each layout's SQL over `steps` (valid rows only, the page's default). */
  layouts: Record<string, string>;
}

/**
 * The steps Parquet (MAP columns as {key, value} lists, how writeShardSteps writes them) as the pool's steps rows. Read
 * from `merge`'s output, whose step ids are unique (shards merged as one pool, decision 011); over unmerged shard files a
 * step two shards both made would be kept once here, but a trace split over two shards would not be joined.
 */
const STEPS_FROM_IN = 'SELECT * REPLACE (map_from_entries(metadata) AS metadata) FROM steps_in QUALIFY row_number() OVER (PARTITION BY step_id ORDER BY source, source_line) = 1';

export async function layoutBundle(pool: NativePool | null): Promise<LayoutBundle> {
  const layouts: Record<string, string> = {};
  for (const layout of Object.keys(LAYOUTS) as DatasetLayout[]) {
    const opts: LayoutOptions = { layout };
    // verl_prompts types the sources' JSON fields from the data; without a pool they stay text
    const resolved = pool ? await resolveLayoutOptions((sql) => pool.rows(sql), opts) : { ...opts, jsonTypes: null };
    layouts[layout] = datasetSql(resolved);
  }
  const curation = DDL.find((d) => /CREATE TABLE IF NOT EXISTS curation\b/.test(d));
  if (!curation) throw new Error('the pool schema has no curation table');
  return {
    prelude: [curation, ...CURATION_HELPERS.filter((h) => h.kind !== 'view' && h.kind !== 'table').map((h) => h.sql)],
    load: `CREATE TABLE steps AS ${STEPS_FROM_IN}`,
    layouts,
  };
}
