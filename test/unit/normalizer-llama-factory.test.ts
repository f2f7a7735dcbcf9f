/**
 * Fine-tuning datasets (src/ingest/normalizers/llama-factory.ts): the detection ladder of alpaca, pair and
 * KTO rows, the value shapes a chosen / rejected / prompt may take, history pairs, a pair repeating its
 * prompt, the ids and metadata of each side. Written to kill mutants StrykerJS found.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { llamaFactory } from '../../src/ingest/normalizers/llama-factory';
import type { TrajectoryDraft } from '../../src/contract/step';
import { ctx, fixtureRecords, runNormalizer } from './helpers/formats';
import { readFileSync } from 'node:fs';
import { detectFormat } from '../../src/ingest/detect';
import { compileMapping } from '../../src/ingest/mapping/compile';
import type { Normalizer } from '../../src/ingest/normalizer';
import { NORMALIZERS } from '../../src/ingest/normalizers';

const norm = (value: unknown): TrajectoryDraft[] => llamaFactory.normalize({ value, line: 1, index: 0 }, ctx, undefined as never);
const score = (v: unknown) => llamaFactory.detect([v]);
const u = (content: string) => ({ role: 'user', content });
const a = (content: string) => ({ role: 'assistant', content });

describe('llama-factory normalizer', () => {
  it('detect: pairs 0.97 (shaped, or chosen a conversation), KTO 0.97, plain alpaca 0.8, nothing else', () => {
    assert.equal(score({ instruction: 'q', output: 'a', chosen: 'x', rejected: 'y' }), 0.97);
    assert.equal(score({ question: 'q', chosen_response: 'x', rejected_response: 'y' }), 0.97);
    assert.equal(score({ prompt: 'q', chosen: 'x', rejected: 'y' }), 0.97);
    assert.equal(score({ chosen: [u('q'), a('x')], rejected: [u('q'), a('y')] }), 0.97, "TRL's implicit prompt");
    assert.equal(score({ chosen: JSON.stringify([u('q'), a('x')]), rejected: '[]' }), 0.97, 'as JSON text');
    assert.equal(score({ chosen: 'x', rejected: 'y' }), 0, 'a bare pair of strings has no prompt');
    assert.equal(score({ chosen: 'x', rejected_response: 'y', prompt: 'q' }), 0, 'mixed spellings are no pair');
    assert.equal(score({ prompt: 'q', completion: 'x', label: true }), 0.97);
    assert.equal(score({ prompt: 'q', kto_tag: false }), 0.97);
    assert.equal(score({ messages: [u('q'), a('x')], label: false }), 0.97);
    assert.equal(score({ prompt: 'q', label: true }), 0, 'a label without a completion or turns is no KTO tag');
    assert.equal(score({ prompt: 'q', completion: 'x', label: 'good' }), 0);
    assert.equal(score({ instruction: 'q', output: 'a' }), 0.8);
    assert.equal(score({ instruction: 'q', input: 'x' }), 0, 'no output');
    assert.equal(score({ instruction: 5, output: 'a' }), 0);
    assert.equal(score({ instruction: 'q', output: 'a', conversations: [{ from: 'human', value: 'q' }] }), 0, 'a ShareGPT row is sharegpt');
    assert.equal(score({ question: 5, chosen: 'x', rejected: 'y' }), 0);
    assert.equal(score({ conversations: [{ from: 'human', value: 'q' }, 'junk'], chosen: 'x', rejected: 'y' }), 0, 'turns must all be turns');
    assert.equal(score({ messages: [{ content: 'no role' }], label: true }), 0);
    assert.equal(score('text'), 0);
    assert.equal(llamaFactory.detect([{ instruction: 'q', output: 'a' }, { x: 1 }]), 0.4);
    assert.throws(() => norm({ x: 1 }), /expected an alpaca row/);
    assert.throws(() => norm('x'), /expected an alpaca row/);
  });

  it('alpaca: system, history pairs (malformed ones skipped), instruction and input joined; question rows too', () => {
    const [t] = norm({ system: 'Be brief.', history: [['h1', 'a1'], 'junk', ['h2', 'a2']], instruction: 'Add', input: '2 and 2', output: '4', id: 'r1' });
    const last = t.steps.at(-1)!;
    assert.deepEqual([...last.messages.map((m) => [m.role, m.content]), [last.response?.role, last.response?.content]], [['system', 'Be brief.'], ['user', 'h1'], ['assistant', 'a1'], ['user', 'h2'], ['assistant', 'a2'], ['user', 'Add\n2 and 2'], ['assistant', '4']]);
    assert.equal(t.trajectory_uid, 'r1');
    assert.equal(norm({ instruction: 'Add', input: '', output: '4' })[0].steps.at(-1)?.messages.at(-1)?.content, 'Add');
    assert.equal(norm({ history: JSON.stringify([['h', 'a']]), instruction: 'q', output: 'x' })[0].steps.length, 2, 'history as JSON text');
    const p = norm({ prompt: [u('from prompt')], completion: 'x', label: true })[0].steps[0];
    assert.deepEqual([p.messages[0].content, p.response?.content, p.reward], ['from prompt', 'x', 1]);
  });

  it('values: text, lists, ShareGPT turns, OpenAI messages, other JSON as text; an empty value no response', () => {
    const side = (chosen: unknown) => norm({ prompt: 'q', chosen, rejected: 'r' })[0].steps[0];
    assert.equal(side({ from: 'gpt', value: 'turn' }).response?.content, 'turn');
    assert.equal(side({ content: 'msg' }).response?.content, 'msg');
    assert.equal(side({ content: 'msg', role: 'assistant' }).response?.role, 'assistant');
    assert.equal(side(42).response?.content, '42');
    assert.equal(side({ score: 1 }).response?.content, '{"score":1}');
    assert.deepEqual([side(null).response, side(null).messages.length], [null, 1]);
    const lst = side([{ from: 'human', value: 'more context' }, { from: 'gpt', value: 'reply' }]);
    assert.deepEqual([lst.messages.map((m) => m.content), lst.response?.content], [['q', 'more context'], 'reply']);
    const noAssistant = side([u('only user')]);
    assert.deepEqual([noAssistant.response, noAssistant.messages.map((m) => m.content)], [null, ['q', 'only user']]);
  });

  it('pairs: ids per side, one prompt group, rewards 1 and 0, the preference in metadata, a repeated prompt dropped', () => {
    const conv = [u('q')];
    const out = norm({ id: 'p1', messages: conv, chosen: [u('q'), a('good')], rejected: [u('q'), a('bad')], extra: 'kept', reward: 5 });
    assert.deepEqual(out.map((t) => [t.trajectory_uid, t.steps[0].reward, t.common?.metadata?.preference, t.steps[0].messages.length, t.steps[0].response?.content]), [['p1:chosen', 1, 'chosen', 1, 'good'], ['p1:rejected', 0, 'rejected', 1, 'bad']]);
    assert.equal(out[0].prompt_uid, out[1].prompt_uid);
    assert.deepEqual(out[0].common?.metadata, { extra: 'kept', reward: '5', preference: 'chosen' }, "a pair's own reward is kept in metadata");
    const diff = norm({ messages: [u('q'), a('x'), u('q2')], chosen: [u('other'), a('good')], rejected: 'bad' });
    assert.deepEqual(diff[0].steps[0].messages.map((m) => m.content), ['q', 'x', 'q2', 'other'], 'a head that is not the prompt is kept');
    const shorter = norm({ messages: [u('q'), u('q2')], chosen: [u('q'), a('good')], rejected: 'bad' });
    assert.deepEqual(shorter[0].steps[0].messages.map((m) => m.content), ['q', 'q2', 'q'], 'a head shorter than the prompt is kept');
    const role = norm({ messages: [u('q')], chosen: [{ role: 'system', content: 'q' }, a('good')], rejected: 'bad' });
    assert.equal(role[0].steps[0].messages.length, 2, 'same text, other role: not the prompt');
    assert.equal(norm({ prompt: 'q', chosen: 'x', rejected: 'y' })[0].trajectory_uid, null);
    assert.equal(norm({ question: 'q', chosen_response: 'x', rejected_response: 'y' })[1].steps[0].response?.content, 'y');
  });

  it('KTO and plain rows: tag as reward and in metadata; own reward or score; tools wrapped; data source', () => {
    const k = norm({ messages: [u('q'), a('x'), u('q2'), a('y')], kto_tag: false, tools: [{ name: 'calc' }, { type: 'function', function: { name: 'f' } }], data_source: 'hh' })[0];
    assert.deepEqual(k.steps.map((s) => s.reward), [undefined, 0]);
    assert.equal(k.common?.metadata?.kto_tag, 'false');
    assert.deepEqual(JSON.parse(k.common?.tools ?? '[]'), [{ type: 'function', function: { name: 'calc' } }, { type: 'function', function: { name: 'f' } }]);
    assert.equal(k.common?.data_source, 'hh');
    assert.equal(norm({ prompt: 'q', completion: 'x', kto_tag: true, reward: 0 })[0].common?.metadata?.reward, '0', 'a KTO row keeps its reward field in metadata');
    const plain = norm({ instruction: 'q', output: 'x', score: '0.5', reward: null, note: 'n' })[0];
    assert.equal(plain.steps.at(-1)?.reward, 0.5);
    assert.deepEqual(plain.common?.metadata, { note: 'n' }, "a plain row's reward / score are read, not repeated");
    assert.equal(norm({ instruction: 'q', output: 'x' })[0].steps.at(-1)?.reward, undefined);
    assert.equal(norm({ instruction: 'q', output: 'x', tools: 'nope' })[0].common?.tools, null);
  });
});

const values = (f: string) => fixtureRecords(f).map((r) => r.value);

describe('llama-factory normalizer: more shapes', () => {
  it('wins detection for alpaca, DPO and KTO shapes; leaves plain ShareGPT and veRL rows alone', () => {
    for (const f of ['llamafactory-alpaca-history.json', 'llamafactory-dpo-sharegpt.json', 'llamafactory-kto.json', 'trl-preference.jsonl', 'alpaca.jsonl'])
      assert.equal(detectFormat(values(f)).normalizer.id, 'llama-factory', f);
    assert.equal(detectFormat(values('sharegpt-llamafactory.jsonl')).normalizer.id, 'sharegpt');
    assert.equal(detectFormat(values('verl-prompts.jsonl')).normalizer.id, 'verl');
  });

  it('a user-enabled alpaca mapping still wins over the built-in alpaca reading', () => {
    const mapping = compileMapping(JSON.parse(readFileSync(new URL('../../notebooks/formats/alpaca.json', import.meta.url), 'utf8'))) as Normalizer<unknown>;
    assert.equal(detectFormat(values('alpaca.jsonl'), [mapping, ...NORMALIZERS]).normalizer.id, 'alpaca');
  });

  it('alpaca DPO rows and axolotl chatml.argilla rows are pairs too', () => {
    const rows = runNormalizer(
      llamaFactory,
      [
        { instruction: 'Rewrite more formally.', input: 'gonna be late', chosen: 'I will be late.', rejected: 'late lol' },
        { instruction: 'Name a prime number.', chosen_response: '7', rejected_response: '9' },
      ].map((value, index) => ({ value, line: index + 1, index })),
    );
    assert.deepEqual(
      rows.map((r) => [r.messages.at(-1)?.content, r.response_text, r.reward]),
      [
        ['Rewrite more formally.\ngonna be late', 'I will be late.', 1],
        ['Rewrite more formally.\ngonna be late', 'late lol', 0],
        ['Name a prime number.', '7', 1],
        ['Name a prime number.', '9', 0],
      ],
    );
  });

  it("an alpaca row's own reward / score is its reward", () => {
    const rows = runNormalizer(llamaFactory, [{ value: { instruction: '2+2?', output: '4', reward: 0.75 }, line: 1, index: 0 }]);
    assert.equal(rows[0].reward, 0.75);
    assert.equal(rows[0].metadata, null);
  });
});

describe('llama-factory normalizer: preference rows as message lists (issue 32)', () => {
  const sides = (ds: TrajectoryDraft[]) => ds.map((d) => [d.common?.metadata?.preference, d.steps[0].messages.map((m) => m.content), d.steps[0].response?.content, d.steps[0].reward]);

  it('chosen_messages / rejected_messages (whole conversations) and with prompt_messages apart: two trajectories of one prompt', () => {
    const whole = norm({ chosen_messages: [u('2+2?'), a('4')], rejected_messages: [u('2+2?'), a('5')] });
    assert.deepEqual(sides(whole), [['chosen', ['2+2?'], '4', 1], ['rejected', ['2+2?'], '5', 0]]);
    assert.equal(whole[0].prompt_uid, whole[1].prompt_uid);
    const apart = norm({ prompt_messages: [{ role: 'system', content: 'Be exact.' }, u('2+2?')], chosen_messages: [a('4')], rejected_messages: [a('5')] });
    assert.deepEqual(sides(apart), [['chosen', ['Be exact.', '2+2?'], '4', 1], ['rejected', ['Be exact.', '2+2?'], '5', 0]]);
    assert.ok(score({ chosen_messages: [u('q'), a('x')], rejected_messages: [u('q'), a('y')] }) > 0.9);
  });

  it("ms-swift: `messages` is the chosen conversation, `rejected_messages` or `rejected_response` the other answer", () => {
    const msgs = { messages: [u('Capital of France?'), a('Paris.')] };
    assert.deepEqual(sides(norm({ ...msgs, rejected_response: 'Lyon.' })), [['chosen', ['Capital of France?'], 'Paris.', 1], ['rejected', ['Capital of France?'], 'Lyon.', 0]]);
    assert.deepEqual(sides(norm({ ...msgs, rejected_messages: [u('Capital of France?'), a('Marseille.')] }))[1], ['rejected', ['Capital of France?'], 'Marseille.', 0]);
  });
});
