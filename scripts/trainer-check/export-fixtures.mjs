// Export every training layout from the test fixtures through the built app (dist/), as a user would, into a folder
// for trainer-check.py. Usage: npx vite build && node scripts/trainer-check/export-fixtures.mjs [out-dir]
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startApp, uniquePool } from '../../test/e2e/harness.mjs';

const out = process.argv[2] ?? '/tmp/aw-trainer-check';
mkdirSync(out, { recursive: true });
const files = [
  'test/fixtures/core/chat.jsonl',
  ...readdirSync('test/fixtures/formats').sort().map((f) => `test/fixtures/formats/${f}`),
].map((p) => ({ name: p.split('/').pop(), b64: readFileSync(p).toString('base64') }));

const app = await startApp();
try {
  const page = await app.open(uniquePool('trainer-check'));
  const reports = await page.evaluate(async (fs) => {
    const bin = (b) => Uint8Array.from(atob(b), (c) => c.charCodeAt(0));
    const rs = await window.workbench.importFiles(fs.map((f) => new File([bin(f.b64)], f.name)));
    return rs.map((r) => ({ file: r.file, format: r.format, status: r.status, added: r.added }));
  }, files);
  const exports = [
    ['steps', { layout: 'steps' }],
    ['sft', { layout: 'sft' }],
    ['sft_step', { layout: 'sft', sftPer: 'step' }],
    ['rl_steps', { layout: 'rl_steps' }],
    ['verl_prompts', { layout: 'verl_prompts' }],
    ['dpo', { layout: 'dpo' }],
  ];
  const summary = { files: reports, layouts: {} };
  for (const [name, opts] of exports) {
    for (const format of ['parquet', 'jsonl']) {
      const b64 = await page.evaluate(async (o) => {
        const blob = await window.workbench.exportDataset(o);
        const bytes = new Uint8Array(await blob.arrayBuffer());
        let s = '';
        for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
        return btoa(s);
      }, { ...opts, format });
      const file = join(out, `${name}.${format}`);
      writeFileSync(file, Buffer.from(b64, 'base64'));
      summary.layouts[`${name}.${format}`] = Buffer.from(b64, 'base64').length;
    }
  }
  writeFileSync(join(out, 'export-summary.json'), JSON.stringify(summary, null, 2));
  console.log(`imported ${reports.length} files (${reports.filter((r) => r.status === 'done').length} done); wrote ${Object.keys(summary.layouts).length} exports to ${out}`);
  if (app.errors.length) console.log(`page errors: ${app.errors.join('; ')}`);
} finally {
  await app.close();
}
