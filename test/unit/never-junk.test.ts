/**
 * Never junk (issue 32 item 4): a file whose records do not form LLM calls keeps nothing and says so. The session
 * formats of this issue were junk before their normalizers existed (one empty step per message, a session log read
 * as Anthropic messages): each is imported here with its own normalizer left out of the registry and must keep
 * nothing; with it, it makes steps. A low-confidence `generic` read keeps nothing unless asked for, and a step with
 * no response (not a failed call, not a prompt row of a prompt set) is not pooled.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { Normalizer } from '../../src/ingest/normalizer';
import { NORMALIZERS } from '../../src/ingest/normalizers';
import { readRecords } from '../../src/ingest/reader';
import { runRecords } from '../../src/ingest/run-records';
import { importWith } from './helpers/ingest-files';

const fixture = (path: string) => readFileSync(new URL(`../fixtures/${path}`, import.meta.url));

async function run(path: string, all: Normalizer<unknown>[]) {
  return runRecords(readRecords(new Blob([fixture(path)]).stream()), {
    ctx: { sourceId: '0'.repeat(64), file: path.split('/').pop()! },
    all,
    importId: 1,
    emitBatch: async () => {},
  });
}

const SESSIONS: [string, string][] = [
  ['formats/gemini-cli-session.json', 'gemini-cli'],
  ['formats/gemini-cli-session.jsonl', 'gemini-cli'],
  ['formats/gemini-cli-parts.json', 'gemini-cli'],
  ['formats/gemini-cli-fork.json', 'gemini-cli'],
  ['formats/gemini-cli-stream.jsonl', 'gemini-cli'],
  ['folders/cline-task/tasks/1769053680585/api_conversation_history.json', 'cline'],
  ['folders/cline-task/tasks/1769053680585/ui_messages.json', 'cline'],
  ['formats/cline-xml-task.json', 'cline'],
  ['formats/pi-session.jsonl', 'pi'],
  ['formats/pi-session-system.jsonl', 'pi'],
  ['formats/session-trace-simple.jsonl', 'session-trace'],
  ['formats/opencode-run-events.jsonl', 'opencode'],
  ['formats/opencode-export.json', 'opencode'],
  ['formats/aider.llm.history', 'aider'],
  ['formats/aider.chat.history.md', 'aider'],
  ['formats/tau2-bench-results.json', 'tau2-bench'],
];

describe('never junk', () => {
  for (const [path, id] of SESSIONS) {
    it(`${path} keeps nothing without the ${id} normalizer`, async () => {
      const without = await run(path, NORMALIZERS.filter((n) => n.id !== id));
      assert.equal(without.rowsMade, 0, `read as ${without.format} (${without.confidence}) and pooled ${without.rowsMade} row(s)`);
      const withIt = await run(path, NORMALIZERS);
      assert.equal(withIt.format, id);
    });
  }

  it('a file of no known shape keeps nothing, names the fields it saw, and keeps generic rows only when asked', async () => {
    const file = new File([fixture('mapping/support-tickets.jsonl')], 'support-tickets.jsonl');
    const guess = await importWith(file, []);
    assert.equal(guess.report.status, 'failed');
    assert.equal(guess.rows.length, 0);
    assert.deepEqual(guess.report.notUnderstood?.fields, ['ticket', 'queue', 'opened', 'dialog', 'csat', 'bot_build', 'note']);
    assert.match(guess.report.message ?? '', /^Not understood: .*fields seen: ticket, queue/);
    const asked = await runRecords(readRecords(file.stream()), { ctx: { sourceId: '0'.repeat(64), file: file.name }, all: NORMALIZERS, importId: 1, emitBatch: async () => {}, forcedFormat: 'generic' });
    assert.equal(asked.rowsMade, 5, 'forced generic keeps every parsed record');
  });

  it('a step with no response is not pooled unless it is a failed call or a prompt row of a prompt set', async () => {
    const lines = [
      { task_id: 1, reward: 1, traj: [{ role: 'user', content: 'only a question' }], info: {} },
      { task_id: 2, reward: 0, traj: [], info: { error: 'RateLimitError' } },
      { task_id: 3, reward: 1, traj: [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a' }], info: {} },
    ];
    const file = new File([lines.map((l) => JSON.stringify(l)).join('\n')], 'tau.jsonl');
    const { report, rows } = await importWith(file, []);
    assert.equal(report.format, 'tau-bench');
    assert.deepEqual(rows.map((r) => [r.source_line, r.status]), [[2, 'error'], [3, 'ok']], 'the prompt-only result is no call; the failed run is an error step');
    assert.ok(report.warnings.some((w) => /1 step\(s\) had no response .* not kept \(line 1\)/.test(w)), report.warnings.join(' | '));
    const prompts = await importWith(new File([JSON.stringify({ messages: [{ role: 'user', content: 'a prompt' }] })], 'prompts.jsonl'), []);
    assert.equal(prompts.rows.length, 1, 'openai-chat rows may be prompt rows');
  });
});
