/**
 * The step record defined once (docs/decisions/085): contract/step-columns.ts is the list of columns; the pool's DDL is
 * derived from it, and the Arrow encoding (record/step-arrow.ts, written out by hand for speed) must match it column by
 * column and field by field. The compiler holds the list to StepRecord; the `@ts-expect-error` lines below prove it
 * does (typecheck fails when one of them stops being an error).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { Bool, type DataType, Field, Float64, Int32, List, Map_, Struct, TimeUnit, Timestamp, Utf8, tableFromIPC } from 'apache-arrow';
import type { ChatMessage, StepRecord } from '../../src/contract/step';
import { BOOLEAN, type Column, type ColumnType, INTEGER, list, MESSAGE, STEP_COLUMN_NAMES, STEP_COLUMNS, struct, TOOL_CALL, VARCHAR } from '../../src/contract/step-columns';
import { DDL, MESSAGE_TYPE, QUOTED_FIELD_NAMES, sqlType } from '../../src/pool/schema';
import { stepsToBatch, stepsToIPC } from '../../src/record/step-arrow';

/** The Arrow type a storage type is encoded as (what DuckDB reads back as that type). */
function arrowType(t: ColumnType<never>): DataType {
  switch (t.kind) {
    case 'VARCHAR':
      return new Utf8();
    case 'INTEGER':
      return new Int32();
    case 'DOUBLE':
      return new Float64();
    case 'BOOLEAN':
      return new Bool();
    case 'TIMESTAMP':
      return new Timestamp(TimeUnit.MILLISECOND);
    case 'MAP':
      return new Map_<Utf8, Utf8>(new Field('entries', new Struct<{ key: Utf8; value: Utf8 }>([new Field('key', new Utf8(), false), new Field('value', new Utf8(), true)]), false), false);
    case 'LIST':
      return new List(new Field('item', arrowType(t.item), true));
    case 'STRUCT':
      return new Struct(Object.entries(t.fields).map(([n, f]) => new Field(n, arrowType(f), true)));
  }
}

/** A type as text with its field names, recursively (apache-arrow's toString leaves struct names out of lists). */
function describe_(t: DataType): string {
  if (t instanceof Struct) return `Struct<${t.children.map((f) => `${f.name}: ${describe_(f.type)}`).join(', ')}>`;
  if (t instanceof List) return `List<${describe_(t.children[0].type)}>`;
  if (t instanceof Map_) return `Map<${describe_(t.children[0].type)}>`;
  return String(t);
}

const step: StepRecord = {
  step_id: 's:0', trajectory_uid: 's', prompt_uid: 'p', step_index: 0, is_last: true, channel: 'train', policy_version: 1, agent: 'a', data_source: 'd',
  model: 'm', provider: 'openai', messages: [{ role: 'user', content: 'hi' }], tools: '[]',
  response: { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
  response_text: null, finish_reason: 'tool_calls', prompt_tokens: 3, completion_tokens: 4, prompt_ids: [1], response_ids: [2], rollout_log_probs: [-0.25], reward: 1,
  started_at: 1_700_000_000_000, ended_at: 1_700_000_000_500, latency_ms: 500, ttft_ms: 20, status: 'ok', error: null, metadata: { k: 'v' }, raw: '{}',
  source: 'f.jsonl', source_format: 'openai-chat', source_line: 1, source_id: 'x', import_id: 1, source_trajectory_id: null,
};

describe('the step record defined once: contract/step-columns.ts', () => {
  it('the Arrow encoding has every column of the list, in its order, each of the type the list names (field by field)', () => {
    for (const fields of [stepsToBatch([]).schema.fields, stepsToBatch([step]).schema.fields, tableFromIPC(stepsToIPC([step])).schema.fields]) {
      assert.deepEqual(fields.map((f) => f.name), STEP_COLUMN_NAMES);
      for (const f of fields) assert.equal(describe_(f.type), describe_(arrowType(STEP_COLUMNS[f.name as keyof StepRecord].type)), f.name);
    }
  });

  it('the comparison sees a field out of place (a check that saw nothing would pass everything)', () => {
    const swapped = struct<ChatMessage>({ content: VARCHAR, role: VARCHAR, reasoning: VARCHAR, name: VARCHAR, tool_call_id: VARCHAR, tool_calls: list(TOOL_CALL), parts: VARCHAR, is_error: BOOLEAN });
    assert.notEqual(describe_(arrowType(swapped)), describe_(arrowType(MESSAGE)));
    assert.notEqual(describe_(arrowType(list(INTEGER))), describe_(arrowType(list(VARCHAR))));
  });

  it("the pool's steps table has every column of the list with the type derived from it (DuckDB reads the DDL back as written)", async () => {
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    try {
      for (const s of DDL) await c.run(s);
      const cols = (await c.runAndReadAll('DESCRIBE steps')).getRowObjectsJson() as { column_name: string; column_type: string; null: string; default: string | null }[];
      assert.deepEqual(cols.map((r) => r.column_name), STEP_COLUMN_NAMES);
      for (const r of cols) {
        const col: Column<never> = STEP_COLUMNS[r.column_name as keyof StepRecord];
        assert.equal(r.column_type, sqlType(col.type), r.column_name);
        assert.equal(r.null, col.notNull ? 'NO' : 'YES', r.column_name);
        assert.equal(r.default, col.default === undefined ? null : `'${col.default}'`, r.column_name);
      }
      const typeOf = (await c.runAndReadAll('SELECT typeof(response) FROM steps LIMIT 1')).getRows();
      assert.equal(typeOf.length ? typeOf[0][0] : MESSAGE_TYPE, MESSAGE_TYPE);
      // the struct field names written quoted are exactly those DuckDB treats as keywords
      const names = new Set<string>();
      const walk = (t: ColumnType<never>) => {
        if (t.kind === 'LIST') walk(t.item);
        if (t.kind !== 'STRUCT') return;
        for (const [n, f] of Object.entries(t.fields)) {
          names.add(n);
          walk(f);
        }
      };
      for (const k of STEP_COLUMN_NAMES) walk(STEP_COLUMNS[k].type);
      const keywords = new Set((await c.runAndReadAll('SELECT keyword_name FROM duckdb_keywords()')).getRows().map((r) => String(r[0])));
      assert.deepEqual([...names].filter((n) => keywords.has(n)).sort(), [...QUOTED_FIELD_NAMES].filter((n) => names.has(n)).sort());
    } finally {
      c.closeSync();
    }
  });

  it('the compiler holds the list to StepRecord (these lines must stay type errors)', () => {
    // @ts-expect-error a VARCHAR cannot hold the boolean is_last
    const wrongType: Column<StepRecord['is_last']> = { type: VARCHAR };
    // @ts-expect-error a message struct without is_error
    const missingField = struct<ChatMessage>({ role: VARCHAR, content: VARCHAR, reasoning: VARCHAR, name: VARCHAR, tool_call_id: VARCHAR, tool_calls: null as never, parts: VARCHAR });
    // @ts-expect-error a struct field ChatMessage does not have
    const extraField = struct<ChatMessage>({ role: VARCHAR, content: VARCHAR, reasoning: VARCHAR, name: VARCHAR, tool_call_id: VARCHAR, tool_calls: null as never, parts: VARCHAR, is_error: BOOLEAN, score: INTEGER });
    // @ts-expect-error a list of integers cannot hold messages
    const wrongItem: Column<StepRecord['messages']> = { type: list(INTEGER) };
    assert.ok(wrongType && missingField && extraField && wrongItem);
  });
});
