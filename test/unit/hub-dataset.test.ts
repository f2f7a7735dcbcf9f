// A dataset folder the Hub understands (src/hub/hub-dataset.ts), written by the CLI (`export --hub-dataset`) from a
// curated pool: the card's configs name files that hold the rows it says (read back with DuckDB by the card's own
// globs), its facts are the pool's (source formats, left out, redaction), the sessions are STS files that the
// workbench's own STS reader reads back into the same conversations, and the folder rule holds. The card's text is a
// golden file (test/fixtures/hub/dataset-card.md; UPDATE_GOLDEN=1 rewrites it).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { runImport } from '../../src/cli/import';
import { normalizeArguments } from '../../src/contract/message';
import { main } from '../../src/cli/main';
import { NativePool } from '../../src/cli/native-pool';
import { type CardInput, datasetCard, sizeCategory } from '../../src/hub/dataset-card';
import { hubSplitName } from '../../src/hub/hub-dataset';
import { sessionFileName, stsLines } from '../../src/hub/sts';
import { scratchDir } from '../scratch.mjs';

const FIXTURES = ['test/fixtures/core/chat.jsonl', 'test/fixtures/formats/claude-code-session.jsonl', 'test/fixtures/formats/session-trace-simple.jsonl', 'test/fixtures/formats/codex-rollout.jsonl'];

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

/** A data_files glob (`sft/train/**` + `/*.parquet`) as a test of a relative path. */
function globRe(glob: string): RegExp {
  const re = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*\*\//g, '§').replace(/\*/g, '[^/]*').replace(/§/g, '(?:.*/)?');
  return new RegExp(`^${re}$`);
}

/** A message as both sides spell it: role, content, tool calls (id, name, arguments) and the id a tool result answers. */
const MSG = `{'role': m.role, 'content': m.content, 'calls': list_transform(coalesce(m.tool_calls, []), c -> {'id': c.id, 'name': c.function.name, 'arguments': c.function.arguments}), 'answers': m.tool_call_id}`;

describe('dataset folder for the Hub (CLI)', () => {
  let dir: string;
  let poolPath: string;
  let out: string;
  let pool: NativePool;
  before(async () => {
    dir = scratchDir('aw-hub-ds-');
    poolPath = join(dir, 'pool.duckdb');
    pool = await NativePool.open(poolPath);
    await runImport(pool, FIXTURES, { threads: 1 });
    // curation: a deterministic val split, one trajectory marked bad
    await pool.exec(`INSERT INTO curation (step_id, split) SELECT step_id, split_of(trajectory_uid, 0.3, 'seed') FROM steps`);
    await pool.exec(`UPDATE curation SET quality = 'bad' WHERE step_id IN (SELECT step_id FROM steps ORDER BY step_id LIMIT 1)`);
    await pool.close();
    out = join(dir, 'dataset');
    writeFileSync(join(dir, 'recipe.md'), "---\ntitle: recipe\n---\n\n```sql id=long_ones\nSELECT trajectory_uid FROM trajectories WHERE step_count > 1\n```\n");
  });

  it('writes the layouts per split, a card whose configs name exactly those files and rows, and STS sessions', async () => {
    const code = await main(['export', '--pool', poolPath, '--layout', 'sft,rl_steps', '--hub-dataset', out, '--sessions', 'sts', '--license', 'cc-by-4.0', '--recipe', join(dir, 'recipe.md'), '--redact', '--partition-by', 'data_source']);
    assert.equal(code, 0);
    const readme = readFileSync(join(out, 'README.md'), 'utf8');
    const meta = parse(readme.split('---\n')[1]);
    assert.equal(meta.license, 'cc-by-4.0');
    assert.ok(meta.tags.includes('agent-traces') && meta.tags.includes('sft'));
    assert.deepEqual(meta.configs.map((c: { config_name: string }) => c.config_name), ['sft', 'rl_steps']);
    assert.equal(meta.configs[0].default, true);
    const files = walk(out).map((f) => relative(out, f).split('\\').join('/'));
    pool = await NativePool.open(poolPath);
    try {
      for (const cfg of meta.configs) {
        assert.deepEqual(cfg.data_files.map((d: { split: string }) => d.split).sort(), ['train', 'validation']);
        for (const d of cfg.data_files) {
          const matched = files.filter((f) => globRe(d.path).test(f));
          assert.ok(matched.length && matched.every((f) => f.endsWith('.parquet')), `${d.path} → ${matched}`);
          // the rows the card's glob reads are the rows of that layout and split in the pool
          const [{ n }] = await pool.rows(`SELECT count(*)::INTEGER AS n FROM read_parquet('${out}/${d.path}')`);
          const split = d.split === 'validation' ? 'val' : d.split;
          const { datasetSql, resolveLayoutOptions } = await import('../../src/export/layouts');
          const want = await pool.rows(
            `SELECT count(*)::INTEGER AS n FROM (${datasetSql(await resolveLayoutOptions((s) => pool.rows(s), { layout: cfg.config_name, redact: true, where: `coalesce(c.split, s.channel, 'train') = '${split}'` }))})`,
          );
          assert.equal(n, want[0].n, `${cfg.config_name} ${d.split}`);
          assert.match(readme, new RegExp(`\\| \`${cfg.config_name}\` \\| [^|]+ \\| \`${d.split}\`[^|]* \\| ${n} \\|`));
        }
      }
      // the source formats the card names are the selection's
      const formats = await pool.rows(`SELECT source_format AS f, count(*)::INTEGER AS n FROM steps s LEFT JOIN curation c USING (step_id) WHERE coalesce(c.trainable, s.status = 'ok' AND c.quality IS DISTINCT FROM 'bad') GROUP BY ALL`);
      assert.deepEqual(Object.fromEntries(Object.entries(meta.agentworld.source_formats).map(([k, v]) => [k, (v as { steps: number }).steps])), Object.fromEntries(formats.map((r) => [r.f, r.n])));
      // the sessions: one file per sft row, each a header and its messages
      const sessions = files.filter((f) => f.startsWith('sessions/'));
      const [{ n: sftRows }] = await pool.rows(`SELECT count(*)::INTEGER AS n FROM read_parquet('${out}/sft/**/*.parquet')`);
      assert.equal(sessions.length, sftRows);
      for (const f of sessions) {
        const lines = readFileSync(join(out, f), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
        assert.equal(lines[0].type, 'session');
        assert.equal(lines[0].harness, 'agentworld-workbench');
        assert.ok(lines.slice(1).length > 0 && lines.slice(1).every((l) => l.type === 'message' && typeof l.message.role === 'string' && typeof l.message.content === 'string'));
      }
    } finally {
      await pool.close();
    }
    assert.match(readme, /```sql\n[\s\S]*long_ones[\s\S]*step_count > 1[\s\S]*```/);
    assert.match(readme, /### Redaction/);
    const manifest = JSON.parse(readFileSync(join(out, '_manifest.json'), 'utf8'));
    assert.deepEqual(
      [...manifest.files.map((f: { path: string }) => f.path), '_manifest.json'].sort(),
      files.filter((f) => !/\/_manifest\.json$/.test(f)).sort(),
      'the manifest lists every file but the layouts\' own manifests',
    );
  });

  it('the sessions read back through the workbench\'s own STS reader as the same conversations', async () => {
    const back = await NativePool.open(join(dir, 'back.duckdb'));
    try {
      const r = await runImport(back, [join(out, 'sessions')], { threads: 1 });
      assert.ok(r.reports.every((x) => x.format === 'session-trace' && x.status === 'done'), JSON.stringify(r.reports.map((x) => [x.file, x.format, x.status, x.message])));
      const got = await back.rows(
        `SELECT trajectory_uid AS t, list_transform(list_concat(messages, [response]), m -> ${MSG}) AS conv FROM steps QUALIFY row_number() OVER (PARTITION BY trajectory_uid ORDER BY step_index DESC) = 1 ORDER BY t`,
      );
      const sft = await back.rows(`SELECT trajectory_uid AS t, list_transform(messages, m -> ${MSG}) AS conv FROM read_parquet('${out}/sft/**/*.parquet') ORDER BY t`);
      assert.equal(got.length, sft.length);
      for (const [i, s] of sft.entries()) {
        // the reader's last step: every message before the last assistant turn, then that turn (a trailing tool or user turn has no call)
        // tool arguments as every reader normalizes them (JSON text; a JSON-encoded string unwrapped)
        const conv = (s.conv as { role: string; calls: { arguments: string }[] }[]).map((m) => ({ ...m, calls: m.calls.map((c) => ({ ...c, arguments: normalizeArguments(c.arguments) })) }));
        const lastAssistant = conv.map((m) => m.role).lastIndexOf('assistant');
        assert.deepEqual(got[i].conv, conv.slice(0, lastAssistant + 1), String(s.t));
      }
    } finally {
      await back.close();
    }
  });

  it('the folder rule: a second export into it is refused, --force replaces only what the first wrote', async () => {
    writeFileSync(join(dir, 'note.txt'), 'x');
    const again = await main(['export', '--pool', poolPath, '--layout', 'sft', '--hub-dataset', out]);
    assert.equal(again, 2);
    const forced = await main(['export', '--pool', poolPath, '--layout', 'sft', '--hub-dataset', out, '--force']);
    assert.equal(forced, 0);
    assert.ok(!existsSync(join(out, 'rl_steps')) && !existsSync(join(out, 'sessions')), 'the first export\'s files went');
    writeFileSync(join(out, 'mine.txt'), 'keep');
    assert.equal(await main(['export', '--pool', poolPath, '--layout', 'sft', '--hub-dataset', out, '--force']), 2);
    assert.equal(readFileSync(join(out, 'mine.txt'), 'utf8'), 'keep');
  });
});

describe('card, split names, session files', () => {
  const input: CardInput = {
    title: 'Calculator agent rollouts | curated',
    license: 'mit',
    tags: ['agentworld-workbench', 'agent-traces', 'sft'],
    configs: [
      { name: 'sft', splits: [{ split: 'train', from: 'train', path: 'sft/train/*.parquet', rows: 1200, files: 2, bytes: 5000 }, { split: 'validation', from: 'val', path: 'sft/validation/*.parquet', rows: 130, files: 1, bytes: 700 }], leftOut: [{ reason: 'a tool call without its result', n: 3 }] },
      { name: 'dpo', splits: [{ split: 'train', from: 'train', path: 'dpo/train/**/*.parquet', rows: 40, files: 1, bytes: 300 }], leftOut: [] },
    ],
    sourceFormats: [{ format: 'claude-code', steps: 900, trajectories: 60 }, { format: 'openai-chat', steps: 430, trajectories: 430 }],
    selection: { where: "s.agent = 'calc|agent'", stepsMatched: 1400, notTrainable: 70, markedBad: 12, trainableOnly: true, validOnly: true, splitColumn: 'split' },
    recipe: "SELECT 1;\n-- a fence inside: ```\nSELECT '```' AS x",
    redaction: { steps: 7, kinds: { email: 5, phone: 0, secret: 2 } },
    tokens: { tokenizer: 'qwen3', steps: 1330, total: 2_500_000, median: 1500, p95: 6000, max: 30000 },
    sessions: { files: 490, harness: 'agentworld-workbench', path: 'sessions/' },
    createdAt: '2026-12-08T10:00:00.000Z',
  };

  it('the card is the golden one; its YAML is what the Hub reads', () => {
    const card = datasetCard(input);
    const golden = 'test/fixtures/hub/dataset-card.md';
    if (process.env.UPDATE_GOLDEN || !existsSync(golden)) {
      if (!process.env.UPDATE_GOLDEN) assert.fail(`${golden} is missing: run with UPDATE_GOLDEN=1 and review it`);
      writeFileSync(golden, card);
    }
    assert.equal(card, readFileSync(golden, 'utf8'));
    const meta = parse(card.split('---\n')[1]);
    assert.deepEqual(meta.size_categories, ['1K<n<10K']);
    assert.deepEqual(meta.configs[1], { config_name: 'dpo', data_files: [{ split: 'train', path: 'dpo/train/**/*.parquet' }] });
    // the recipe's own ``` does not end its fence
    assert.match(card, /````sql\nSELECT 1;[\s\S]*SELECT '```' AS x\n````/);
  });

  it('size categories, split names, session file names', () => {
    assert.deepEqual([0, 999, 1000, 99_999, 100_000, 5e12].map(sizeCategory), ['n<1K', 'n<1K', '1K<n<10K', '10K<n<100K', '100K<n<1M', 'n>1T']);
    assert.deepEqual(['train', 'val', 'test', 'held out', 'a/b'].map(hubSplitName), ['train', 'validation', 'test', 'held_out', 'a_b']);
    const taken = new Set<string>();
    assert.equal(sessionFileName('sess-1', taken), 'sess-1.jsonl');
    assert.equal(sessionFileName('SESS-1', taken).length > 'SESS-1.jsonl'.length, true, 'a case twin is told apart');
    assert.equal(sessionFileName('../../etc/passwd', taken), '..%2F..%2Fetc%2Fpasswd.jsonl');
    assert.ok(sessionFileName('x'.repeat(400), taken).length < 130);
    const lines = stsLines({ trajectory_uid: 't1', model: 'm', agent: 'a', messages: [{ role: 'user', content: 'hi\nthere', reasoning_content: null, name: null, tool_call_id: null, tool_calls: null }, { role: 'assistant', content: '', reasoning_content: 'think', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }] }, { role: 'tool', content: '2', tool_call_id: 'c1', name: 'f' }] }).map((l) => JSON.parse(l));
    assert.deepEqual(lines, [
      { type: 'session', harness: 'agentworld-workbench', id: 't1', name: 'hi there', agent: 'a', model: 'm' },
      { type: 'message', message: { role: 'user', content: 'hi\nthere' } },
      { type: 'message', message: { role: 'assistant', content: '', reasoningContent: 'think', toolCalls: [{ id: 'c1', function: { name: 'f', arguments: '{"x":1}' } }], model: 'm' } },
      { type: 'message', message: { role: 'tool', content: '2', toolCallId: 'c1', name: 'f' } },
    ]);
  });
});
