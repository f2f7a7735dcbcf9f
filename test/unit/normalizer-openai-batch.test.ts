import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { detectFormat } from '../../src/ingest/detect';
import { openaiBatch } from '../../src/ingest/normalizers/openai-batch';
import { fixtureRecords, runFixture, runNormalizer } from './helpers/formats';
import { formatFile, importWith } from './helpers/ingest-files';

describe('openai-batch normalizer', () => {
  it('wins detection for both the input and the output file', () => {
    for (const f of ['openai-batch-input.jsonl', 'openai-batch-output.jsonl']) {
      const d = detectFormat(fixtureRecords(f).map((r) => r.value));
      assert.equal(d.normalizer.id, 'openai-batch', `${f}: ${JSON.stringify(d.scores)}`);
    }
  });

  it('an output alone: every response a step, request missing and said so', () => {
    const rows = runFixture(openaiBatch, 'openai-batch-output.jsonl');
    assert.equal(rows.length, 4);
    assert.ok(rows.every((r) => r.messages.length === 0 && r.metadata?.request_missing === 'true'));
    assert.equal(new Set(rows.map((r) => r.prompt_uid)).size, 4, 'empty prompts are not one group');
    const byId = new Map(rows.map((r) => [r.metadata?.custom_id, r]));
    assert.deepEqual(byId.get('ticket-0002')?.response?.tool_calls?.[0], { id: 'call_tR4vN8pL2kQ6sW1x', type: 'function', function: { name: 'lookup_order', arguments: '{"order_number":"88412"}' } });
    assert.equal(byId.get('ticket-0002')?.finish_reason, 'tool_calls');
    assert.equal(byId.get('ticket-0001')?.response_text, 'Yes, we ship to Norway; delivery usually takes 5-8 working days.');
    assert.equal(byId.get('ticket-0001')?.prompt_tokens, 41);
    assert.equal(byId.get('ticket-0001')?.model, 'gpt-4o-mini-2024-07-18');
    assert.equal(byId.get('ticket-0004')?.response_text, 'shipping', 'a /v1/responses body is read as a Response');
    const failed = byId.get('ticket-0003');
    assert.equal(failed?.status, 'error');
    assert.match(failed?.error ?? '', /Invalid 'max_tokens'/);
    assert.equal(failed?.response, null);
    assert.equal(failed?.metadata?.status_code, '400');
  });

  it('output dropped with its input: each response joined with its request by custom_id', async () => {
    const { report, rows } = await importWith('openai-batch-output.jsonl', ['openai-batch-input.jsonl', 'claude-code-session.jsonl']);
    assert.equal(report.status, 'done');
    assert.equal(report.format, 'openai-batch');
    assert.equal(rows.length, 4);
    assert.ok(report.warnings.some((w) => /4 response\(s\) joined with their request by custom_id from openai-batch-input\.jsonl/.test(w)), report.warnings.join(' | '));
    const byId = new Map(rows.map((r) => [r.metadata?.custom_id, r]));
    const t2 = byId.get('ticket-0002')!;
    assert.deepEqual(
      t2.messages.map((m) => m.role),
      ['system', 'user'],
    );
    assert.equal(t2.messages[1].content, 'Where is my order 88412?');
    assert.equal(JSON.parse(String(t2.tools))[0].function.name, 'lookup_order', 'tool definitions come from the request');
    assert.equal(t2.metadata?.request_missing, undefined);
    assert.equal(t2.metadata?.url, '/v1/chat/completions');
    const t4 = byId.get('ticket-0004')!;
    assert.deepEqual(
      t4.messages.map((m) => [m.role, m.content]),
      [
        ['system', 'Classify the ticket as shipping, returns or other. Answer with the label only.'],
        ['user', 'The parcel arrived with a torn cover.'],
      ],
    );
    assert.equal(byId.get('ticket-0003')?.messages[1].content, 'Can I return a signed copy?', 'a failed request keeps its prompt');
  });

  it('the input dropped with its output adds no rows of its own; alone it is prompt rows', async () => {
    const joined = await importWith('openai-batch-input.jsonl', ['openai-batch-output.jsonl']);
    assert.equal(joined.rows.length, 0);
    assert.ok(joined.report.warnings.some((w) => /4 request\(s\) are imported with their responses from openai-batch-output\.jsonl/.test(w)), joined.report.warnings.join(' | '));
    const alone = await importWith('openai-batch-input.jsonl', []);
    assert.equal(alone.rows.length, 4);
    assert.ok(alone.rows.every((r) => r.response === null && r.metadata?.response_missing === 'true'));
  });

  it('Anthropic Message Batches: results joined with their params by custom_id', () => {
    const requests = [
      { custom_id: 'q-1', params: { model: 'claude-haiku-4-5', max_tokens: 256, system: 'Answer briefly.', messages: [{ role: 'user', content: 'Capital of Peru?' }] } },
      { custom_id: 'q-2', params: { model: 'claude-haiku-4-5', max_tokens: 256, messages: [{ role: 'user', content: 'Capital of Chile?' }] } },
    ];
    const results = [
      {
        custom_id: 'q-1',
        result: {
          type: 'succeeded',
          message: { id: 'msg_01Fx', type: 'message', role: 'assistant', model: 'claude-haiku-4-5-20251001', content: [{ type: 'text', text: 'Lima.' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 14, output_tokens: 4 } },
        },
      },
      { custom_id: 'q-2', result: { type: 'errored', error: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } } },
    ];
    const st = openaiBatch.createState!({ sourceId: 'x'.repeat(64), file: 'results.jsonl', companions: [{ file: 'requests.jsonl', records: requests }] });
    assert.equal(detectFormat(results).normalizer.id, 'openai-batch');
    const rows = runNormalizer({ ...openaiBatch, createState: () => st }, results.map((value, index) => ({ value, line: index + 1, index })));
    assert.deepEqual(
      rows.map((r) => [r.messages.map((m) => `${m.role}:${m.content}`).join('|'), r.response_text, r.finish_reason, r.status, r.error, r.provider]),
      [
        ['system:Answer briefly.|user:Capital of Peru?', 'Lima.', 'stop', 'ok', null, 'anthropic'],
        ['user:Capital of Chile?', null, 'error', 'error', 'Overloaded', 'anthropic'],
      ],
    );
  });

  it('two batches that reuse custom_ids, dropped together: nothing is joined to the wrong request, and no prompt is dropped', async () => {
    const other = async (name: string, edit: (line: Record<string, unknown>) => void) => {
      const lines = (await formatFile(name).text()).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      for (const l of lines) edit(l);
      return new File([lines.map((l) => JSON.stringify(l)).join('\n')], `other-${name}`);
    };
    const inputB = await other('openai-batch-input.jsonl', (l) => {
      for (const m of (l.body as { messages?: { content: string }[] }).messages ?? []) m.content = `B: ${m.content}`;
    });
    const outputB = await other('openai-batch-output.jsonl', (l) => {
      l.id = `${l.id}-b`;
    });
    const out = await importWith('openai-batch-output.jsonl', ['openai-batch-input.jsonl', inputB, outputB]);
    assert.equal(out.rows.length, 4);
    assert.ok(out.rows.every((r) => r.messages.length === 0 && r.metadata?.request_ambiguous === 'true'));
    assert.ok(out.report.warnings.some((w) => /4 response\(s\) not joined: their custom_id is in more than one Batch file/.test(w)), out.report.warnings.join(' | '));
    const inp = await importWith('openai-batch-input.jsonl', ['openai-batch-output.jsonl', inputB, outputB]);
    assert.equal(inp.rows.length, 4, 'the requests stay as prompt rows');
  });
});
