/**
 * A record line written twice in one file is a duplicate, not a conflict and not more steps (issue 32 item 5,
 * decision 011): the record that made a trajectory repeated byte for byte is read once and the report says so;
 * trace exports read an observation or span listed twice with the same content once; the import commit counts
 * steps repeated with the same id and content as duplicates (a repeat with other content stays a rejected line).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { dedupeImport, describeDedupe } from '../../src/pool/import-commit';
import { DDL } from '../../src/pool/schema';
import { importWith } from './helpers/ingest-files';
import { wasmEngine } from './helpers/wasm-engine';

const fixtureLine = (name: string, n = 0) => readFileSync(new URL(`../fixtures/formats/${name}`, import.meta.url), 'utf8').split('\n').filter(Boolean)[n];

describe('duplicate lines', () => {
  it('a step-record line written twice: one step, the report names the repeat', async () => {
    const line = fixtureLine('step-records.jsonl');
    const { report, rows } = await importWith(new File([`${line}\n${line}\n`], 'twice.jsonl'), []);
    assert.equal(rows.length, 1);
    assert.deepEqual(report.rejected, []);
    assert.deepEqual(report.warnings, ['1 record(s) repeat an earlier line of this file exactly (line 2 = 1): duplicates, read once']);
  });

  it('an ATIF trajectory written twice is one trajectory, not its steps twice', async () => {
    const doc = JSON.stringify(JSON.parse(readFileSync(new URL('../fixtures/formats/atif-trajectory.json', import.meta.url), 'utf8')));
    const once = await importWith(new File([`${doc}\n`], 'once.jsonl'), []);
    const twice = await importWith(new File([`${doc}\n${doc}\n`], 'twice.jsonl'), []);
    assert.equal(twice.rows.length, once.rows.length);
    assert.deepEqual(twice.rows.map((r) => r.step_id), once.rows.map((r) => r.step_id));
  });

  it('a Langfuse observation listed twice is one generation', async () => {
    const obs = fixtureLine('langfuse-observations.jsonl');
    const { report, rows } = await importWith(new File([`${obs}\n${obs}\n`], 'obs.jsonl'), []);
    assert.deepEqual(rows.map((r) => r.step_id), ['tr-b:0']);
    assert.ok(report.warnings.includes('1 observation(s) were listed twice with the same id and content: duplicates, read once'), report.warnings.join('; '));
  });

  it('the commit (in the engine the browser runs): a step id made twice with the same content is a duplicate, with other content a rejected line', async () => {
    const { conn } = await wasmEngine();
    const q = (sql: string) => conn.query(sql);
    for (const s of DDL) q(s);
    const row = (id: string, line: number, text: string) =>
      `('${id}', 't', 0, [{'role': 'user', 'content': 'q', 'reasoning': NULL, 'name': NULL, 'tool_call_id': NULL, 'tool_calls': NULL, 'parts': NULL, 'is_error': NULL}], {'role': 'assistant', 'content': '${text}', 'reasoning': NULL, 'name': NULL, 'tool_call_id': NULL, 'tool_calls': NULL, 'parts': NULL, 'is_error': NULL}, ${line}, 1)`;
    q(`INSERT INTO steps (step_id, trajectory_uid, step_index, messages, response, source_line, import_id) VALUES ${row('t:0', 1, 'a')}, ${row('t:0', 2, 'a')}, ${row('t:0', 3, 'b')}`);
    const d = dedupeImport(q, 1);
    assert.equal(d.duplicates, 1);
    assert.deepEqual(d.repeats.map((r) => r.line), [3]);
    assert.equal(Number(q('SELECT count(*) AS n FROM steps').toArray()[0].n), 1);
  });

  it('the commit names same-content repeats duplicates and other-content repeats conflicts', () => {
    assert.deepEqual(describeDedupe({ alreadyInPool: 0, collisions: [], repeats: [], duplicates: 2 }, 5), ['2 step(s) repeat a step of an earlier line of this file with the same content: duplicates, stored once']);
    assert.deepEqual(describeDedupe({ alreadyInPool: 0, collisions: [], repeats: [{ line: 3, reason: 'x' }] }, 5), ['1 step(s) repeat a step id of an earlier line with other content (see rejected lines)']);
  });
});
