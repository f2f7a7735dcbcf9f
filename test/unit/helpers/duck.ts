/**
 * A real DuckDB (the native build of the engine the browser runs as WASM) with the pool's schema and curation
 * helpers, for unit tests of the SQL the app builds: the statements run, not just their text is compared.
 */
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { CURATION_HELPERS } from '../../../src/pool/curation-sql';
import { DDL, trajectoryStatsSql } from '../../../src/pool/schema';

export type Row = Record<string, unknown>;

/** A SQL literal for plain JSON-like test data (strings quoted, arrays as lists, objects as structs). */
export function lit(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'string') return `'${v.replaceAll("'", "''")}'`;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(lit).join(', ')}]`;
  if (v instanceof Map) return `MAP {${[...v].map(([k, x]) => `${lit(k)}: ${lit(x)}`).join(', ')}}`;
  return `{${Object.entries(v as Row).map(([k, x]) => `'${k}': ${lit(x)}`).join(', ')}}`;
}

export interface TestPool {
  conn: DuckDBConnection;
  rows(sql: string): Promise<Row[]>;
  run(sql: string): Promise<void>;
  /** Insert step rows (columns by name) and refresh trajectory_stats the way the pool does after every write. */
  addSteps(steps: Row[]): Promise<void>;
  addCuration(rows: Row[]): Promise<void>;
  close(): void;
}

export async function openTestPool(): Promise<TestPool> {
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  const run = async (sql: string) => {
    await conn.run(sql);
  };
  const rows = async (sql: string) => (await conn.runAndReadAll(sql)).getRowObjectsJson() as Row[];
  for (const s of DDL) await run(s);
  for (const h of CURATION_HELPERS) await run(h.sql);
  const insert = async (table: string, list: Row[]) => {
    for (const r of list) {
      const cols = Object.keys(r);
      await run(`INSERT INTO ${table} (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map((c) => lit(r[c])).join(', ')})`);
    }
  };
  return {
    conn,
    rows,
    run,
    async addSteps(steps) {
      await insert('steps', steps);
      await run('DELETE FROM trajectory_stats');
      await run(`INSERT INTO trajectory_stats ${trajectoryStatsSql(null)}`);
    },
    async addCuration(list) {
      await insert('curation', list);
    },
    close() {
      conn.closeSync();
      db.closeSync();
    },
  };
}

export const user = (content: string) => ({ role: 'user', content });
export const system = (content: string) => ({ role: 'system', content });
export const assistant = (content: string | null, extra: Row = {}) => ({ role: 'assistant', content, ...extra });
export const toolCall = (id: string, name: string, args: string) => ({ id, type: 'function', function: { name, arguments: args } });
