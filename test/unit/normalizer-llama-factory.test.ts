import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { detectFormat } from '../../src/ingest/detect';
import { compileMapping } from '../../src/ingest/mapping/compile';
import type { Normalizer } from '../../src/ingest/normalizer';
import { NORMALIZERS } from '../../src/ingest/normalizers';
import { llamaFactory } from '../../src/ingest/normalizers/llama-factory';
import { fixtureRecords, runFixture, runNormalizer } from './helpers/formats';

const values = (f: string) => fixtureRecords(f).map((r) => r.value);

describe('llama-factory normalizer', () => {
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

  it('alpaca rows: system, history pairs and instruction + input; every assistant turn a step', () => {
    const rows = runFixture(llamaFactory, 'llamafactory-alpaca-history.json');
    assert.equal(rows.length, 3, 'the history answer is a step too');
    const [h0, h1, plain] = rows;
    assert.equal(h0.trajectory_uid, h1.trajectory_uid);
    assert.deepEqual(
      h1.messages.map((m) => [m.role, m.content]),
      [
        ['system', 'You are a concise science tutor.'],
        ['user', 'What is normal human body temperature in Fahrenheit?'],
        ['assistant', 'About 98.6 degrees Fahrenheit.'],
        ['user', 'And in Celsius?'],
      ],
    );
    assert.equal(h1.response_text, 'About 37 degrees Celsius.');
    assert.equal(h0.response_text, 'About 98.6 degrees Fahrenheit.');
    assert.match(plain.messages[0].content ?? '', /^Summarize the text in one sentence\.\nThe city council/);
    assert.ok(rows.every((r) => r.reward === null), 'SFT rows carry no reward');
  });

  it('DPO pairs: chosen and rejected are two trajectories of one prompt group, rewards 1 > 0', () => {
    const rows = runFixture(llamaFactory, 'llamafactory-dpo-sharegpt.json');
    assert.equal(rows.length, 4);
    const [c0, r0, c1, r1] = rows;
    assert.equal(c0.prompt_uid, r0.prompt_uid);
    assert.notEqual(c0.prompt_uid, c1.prompt_uid);
    assert.notEqual(c0.trajectory_uid, r0.trajectory_uid);
    assert.deepEqual(
      [c0.reward, r0.reward, c1.reward, r1.reward],
      [1, 0, 1, 0],
    );
    assert.deepEqual(
      [c0.metadata?.preference, r0.metadata?.preference],
      ['chosen', 'rejected'],
    );
    assert.equal(c0.response_text, 'Fix off-by-one error in pagination offset');
    assert.equal(r0.response_text, 'fixed stuff');
    assert.deepEqual(
      c1.messages.map((m) => m.role),
      ['system', 'user'],
    );
    assert.deepEqual(c1.messages, r1.messages);
  });

  it('TRL pairs (explicit and implicit prompt, axolotl question rows) and KTO rows', () => {
    const rows = runFixture(llamaFactory, 'trl-preference.jsonl');
    const implicit = rows.filter((r) => r.source_line === 2);
    assert.deepEqual(
      implicit.map((r) => [r.messages.map((m) => m.content).join('|'), r.response_text, r.reward]),
      [
        ['Is 17 prime?', 'Yes, 17 is prime.', 1],
        ['Is 17 prime?', 'No, 17 = 3 x 6.', 0],
      ],
      'the shared head of chosen and rejected is the prompt',
    );
    assert.equal(implicit[0].prompt_uid, implicit[1].prompt_uid);
    const kto = rows.find((r) => r.source_line === 3);
    assert.equal(kto?.reward, 1);
    assert.equal(kto?.metadata?.kto_tag, 'true');
    assert.equal(kto?.response_text, ' Canberra.');
    const q = rows.filter((r) => r.source_line === 4);
    assert.deepEqual(
      q.map((r) => [r.messages.map((m) => m.role).join(','), r.reward]),
      [
        ['system,user', 1],
        ['system,user', 0],
      ],
    );
  });

  it('KTO conversations: the tag is the last step reward', () => {
    const rows = runFixture(llamaFactory, 'llamafactory-kto.json');
    assert.deepEqual(
      rows.map((r) => [r.response_text, r.reward, r.metadata?.kto_tag]),
      [
        ['Buenos días.', 1, 'true'],
        ['Buenas tardes.', 0, 'false'],
      ],
    );
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
