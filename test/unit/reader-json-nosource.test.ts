/**
 * JSON values where JSON.parse gives no source text (Node 20 without the V8 flag; older browsers): big integers
 * come out as JSON.parse gives them, never a failed record. This file must not set the flag (its own process).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { parseJson, parseOne } from '../../src/ingest/json-values';

let context: unknown = 'unset';
JSON.parse('1', (_k, v, c?: unknown) => {
  context = c;
  return v;
});

it('without source text access a big integer is the nearest double, and the record is read', { skip: context !== undefined && 'this engine has JSON.parse source text access' }, () => {
  assert.deepEqual(parseJson('{"id": 12345678901234567890, "n": 1}'), { id: 12345678901234567000, n: 1 });
  assert.equal(parseOne('[98765432109876543210]', 3, 0).kind, 'record');
});
