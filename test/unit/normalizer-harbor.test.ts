/**
 * Harbor trace exports (src/ingest/normalizers/harbor.ts): which rows are episode rows, how episodes of a
 * trial are ordered into steps, the response and context of an episode, the trial's result as reward, and
 * what metadata and raw keep. Written to kill mutants StrykerJS found.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { harbor } from '../../src/ingest/normalizers/harbor';
import type { TrajectoryDraft } from '../../src/contract/step';
import { ctx } from './helpers/formats';
import { splitInlineThink } from '../../src/contract/message';
import { importBytes, } from './helpers/real-read';

const conv = (n: number) => [
  { role: 'user', content: 'make hello.txt' },
  ...Array.from({ length: n }, (_, i) => [
    { role: 'assistant', content: `step ${i}` },
    { role: 'user', content: `out ${i}` },
  ]).flat(),
];
const row = (ep: number, extra: Record<string, unknown> = {}) => ({
  conversations: [...conv(ep), { role: 'assistant', content: `step ${ep}` }],
  agent: 'terminus-2', model: 'gpt-5-mini', model_provider: 'openai', date: '2025-10-01', task: 'hello-world', episode: `episode-${ep}`,
  run_id: 'run-1', trial_name: 'hello-world__abc', result: '1.0', ...extra,
});
function run(...values: unknown[]): TrajectoryDraft[] {
  const st = harbor.createState!(ctx);
  for (const [index, value] of values.entries()) assert.deepEqual(harbor.normalize({ value, line: index + 1, index }, ctx, st), []);
  return harbor.flush!(ctx, st);
}
const near = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-9, `${a} ≠ ${b}`);

describe('harbor normalizer', () => {
  it('detect: 0.9 + 0.08 × the share of episode rows, in a one-record array or over the records', () => {
    near(harbor.detect([row(0)]), 0.98);
    near(harbor.detect([[row(0), { note: 1 }]]), 0.94);
    near(harbor.detect([row(0), { note: 1 }]), 0.94);
    assert.equal(harbor.detect([[row(0)], [row(0)]]), 0);
    assert.equal(harbor.detect([]), 0);
    near(harbor.detect([null, row(0)]), 0.94);
    assert.equal(harbor.detect([{ ...row(0), episode: ['episode-0'] }]), 0, 'an episode that is not text');
    for (const bad of [{ episode: 'ep-1' }, { episode: 'episode-1x' }, { episode: 'xepisode-1' }, { episode: 1 }, { trial_name: 3 }, { run_id: undefined }, { conversations: 'x' }, { conversations: [{ content: 'no role' }] }, { conversations: [...conv(0), 'junk'] }]) {
      const r: Record<string, unknown> = { ...row(0), ...bad };
      if ('run_id' in bad) delete r.run_id;
      assert.equal(harbor.detect([r]), 0, JSON.stringify(bad));
    }
    assert.throws(() => run({ note: 1 }), /not a Harbor trace row/);
  });

  it('episodes of a trial: one trajectory, ordered by episode number then by arrival, the result on the last', () => {
    const [t, ...rest] = run(row(10, { result: null }), row(2), [row(0), row(2, { date: 'again' })]);
    assert.equal(rest.length, 0);
    assert.equal(t.trajectory_uid, 'run-1/hello-world__abc');
    assert.equal(t.prompt_uid, 'hello-world');
    assert.deepEqual(t.steps.map((s) => [s.step_index, s.metadata?.date]), [[0, '2025-10-01'], [2, '2025-10-01'], [2, 'again'], [10, '2025-10-01']]);
    assert.deepEqual(t.steps.map((s) => s.reward), [undefined, undefined, undefined, 1], 'a later row without a result keeps the trial result');
    assert.deepEqual(t.steps.map((s) => s.source_line), [3, 2, 3, 1]);
  });

  it('trials apart by run id and trial name; a result that is not a number is no reward; state is cleared', () => {
    const out = run(row(0), row(0, { run_id: 'run-2' }), row(0, { trial_name: 'other', result: 'AgentTimeoutError', task: undefined }), row(0, { run_id: null }));
    assert.deepEqual(out.map((t) => [t.trajectory_uid, t.prompt_uid, t.steps[0].reward]), [['run-1/hello-world__abc', 'hello-world', 1], ['run-2/hello-world__abc', 'hello-world', 1], ['run-1/other', null, undefined], ['/hello-world__abc', 'hello-world', 1]]);
    const st = harbor.createState!(ctx);
    harbor.normalize({ value: row(0), line: 1, index: 0 }, ctx, st);
    assert.equal(harbor.flush!(ctx, st).length, 1);
    assert.deepEqual(harbor.flush!(ctx, st), []);
  });

  it("an episode: its last assistant turn is the response, the rest the context; metadata and raw without the history", () => {
    const s = run(row(1, { tool_definitions: [{ type: 'function', function: { name: 'bash' } }], api_key: 'sk-live-0123456789abcdefghij', note: null }))[0].steps[0];
    assert.deepEqual([s.response?.content, s.messages.length, s.messages.at(-1)?.content], ['step 1', 3, 'out 0']);
    assert.deepEqual([s.agent, s.model, s.provider], ['terminus-2', 'gpt-5-mini', 'openai']);
    assert.equal(JSON.parse(s.tools ?? '[]')[0].function.name, 'bash');
    assert.deepEqual(Object.keys(s.metadata ?? {}), ['date', 'episode', 'run_id', 'trial_name', 'api_key']);
    assert.ok(!s.metadata?.api_key.includes('0123456789abcdef'), 'credentials redacted in metadata');
    const raw = JSON.parse(s.raw ?? '{}');
    assert.equal(raw.conversations, undefined);
    assert.equal(raw.trial_name, 'hello-world__abc');
    assert.ok(!JSON.stringify(raw).includes('0123456789abcdef'), 'credentials redacted in raw');
    const noAnswer = run({ ...row(0), conversations: [{ role: 'user', content: 'q' }, { role: 'user', content: 'q2' }] })[0].steps[0];
    assert.deepEqual([noAnswer.response, noAnswer.messages.length], [null, 2]);
    const first = run({ ...row(0), conversations: [{ role: 'assistant', content: 'hi' }, { role: 'user', content: 'q' }] })[0].steps[0];
    assert.deepEqual([first.response?.content, first.messages.length], ['hi', 0]);
  });
});

describe('Harbor per-episode trace exports (issue 16 defect 5)', () => {
  it('splitInlineThink: closed, template-opened, unclosed and absent blocks', () => {
    const m = (content: string) => splitInlineThink({ role: 'assistant', content });
    assert.deepEqual(m('<think>a</think>b'), { role: 'assistant', content: 'b', reasoning: 'a' });
    assert.deepEqual(m('a plan\n</think>\n\nanswer'), { role: 'assistant', content: 'answer', reasoning: 'a plan' });
    assert.deepEqual(m('<think>cut off by max_tokens'), { role: 'assistant', content: null, reasoning: 'cut off by max_tokens' });
    assert.deepEqual(m('no tags here'), { role: 'assistant', content: 'no tags here' });
    assert.deepEqual(m('explains the <think> tag in prose'), { role: 'assistant', content: 'explains the <think> tag in prose' });
    assert.deepEqual(splitInlineThink({ role: 'user', content: '<think>x</think>y' }), { role: 'user', content: '<think>x</think>y' });
  });

  it('splits <think> the same way in ShareGPT, OpenAI chat and Harbor rows', async () => {
    const answer = '<think>\n17 is prime: no divisor up to 4.\n</think>\n\nYes, 17 is prime.';
    const rows = [
      { conversations: [{ from: 'human', value: 'Is 17 prime?' }, { from: 'gpt', value: answer }] },
      { messages: [{ role: 'user', content: 'Is 17 prime?' }, { role: 'assistant', content: answer }] },
    ];
    for (const row of rows) {
      const { steps, format } = await importBytes(new TextEncoder().encode(`${JSON.stringify(row)}\n`));
      assert.equal(steps[0].response?.reasoning, '17 is prime: no divisor up to 4.', format);
      assert.equal(steps[0].response?.content, 'Yes, 17 is prime.', format);
    }
  });
});
