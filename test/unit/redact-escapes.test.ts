/**
 * `raw` keeps a record's own text only when nothing in it could be a secret (redactedJson, src/record/redact.ts).
 * JSON escapes must not hide one: a key-shaped value or a secret header written with `\uXXXX`, a token right after an
 * escaped newline, `Bearer` followed by an escaped newline or a token with `\/` — each is a secret once parsed, and
 * was kept as is in `raw`. A clean record with escapes keeps its text.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactedJson, redactSecrets } from '../../src/record/redact';

const leaks = [
  String.raw`{"messages":[{"role":"user","content":"key \u0073k-abcdefghijklmnopqrstuvwx"}]}`,
  String.raw`{"messages":[{"role":"user","content":"line one\nsk-abcdefghijklmnopqrstuvwx"}]}`,
  String.raw`{"messages":[{"role":"user","content":"Authorization: Bearer\n9bcdefgh12345678"}]}`,
  String.raw`{"messages":[{"role":"user","content":"Authorization: Bearer \t\nZbcdefgh12345678"}]}`,
  String.raw`{"messages":[{"role":"user","content":"curl -H 'Authorization: Bearer abc\/defgh12345678'"}]}`,
  String.raw`{"note":"see\tghp_abcdefghijklmnopqrstuvwxyz0123456789"}`,
  String.raw`{"headers":{"x-api\u002dkey":"abcdefgh12345678"}}`,
  String.raw`{"headers":[{"name":"\u0041uthorization","value":"Basic dXNlcjpwYXNz"}]}`,
  String.raw`{"url":"https://api.example.com/v1?\u0061pi_key=abcdef123456"}`,
];

describe('redactedJson and JSON escapes', () => {
  it('a secret written with escapes is redacted in raw, as its parsed value is', () => {
    for (const t of leaks) {
      const value = JSON.parse(t);
      assert.notDeepEqual(redactSecrets(value), value, `the case holds a secret: ${t}`);
      const raw = redactedJson(value, t);
      assert.notEqual(raw, t, t);
      const back = JSON.parse(raw as string);
      assert.deepEqual(redactSecrets(back), back, `raw still holds a secret: ${raw}`);
    }
  });

  it('a clean record with escapes keeps its own text', () => {
    for (const t of [String.raw`{"a":"line\nnext\t\"q\" \\ \/ \u00e9 caf\u00e9","n":1.50}`, String.raw`{"text":"the token\nkey\nauthor"}`]) {
      assert.equal(redactedJson(JSON.parse(t), t), t);
    }
  });
});
