// `npm test`: typecheck, lint, unit tests (node), build, browser tests (web-test-runner), e2e tests
// (playwright-core on the built app). Prints each stage and one closing summary line.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';

// Node 20's --test takes files, not folders or globs.
const files = (dir, suffix) => readdirSync(dir).filter((f) => f.endsWith(suffix)).sort().map((f) => `${dir}/${f}`);

const only = process.argv.slice(2);
const stages = [
  { name: 'typecheck', cmd: 'npx', args: ['tsc', '--noEmit', '-p', 'tsconfig.json'], kind: 'check' },
  { name: 'lint', cmd: 'npx', args: ['biome', 'check', '--error-on-warnings', '.'], kind: 'check' },
  { name: 'unit', cmd: 'node', args: ['--import', 'tsx', '--test', '--test-reporter=spec', ...files('test/unit', '.test.ts')], kind: 'node' },
  { name: 'build', cmd: 'npx', args: ['vite', 'build', '--mode', 'test', '--logLevel', 'warn'], kind: 'check' },
  { name: 'browser', cmd: 'npx', args: ['web-test-runner'], kind: 'wtr' },
  { name: 'e2e', cmd: 'node', args: ['--test', '--test-concurrency=1', '--test-reporter=spec', ...files('test/e2e', '.test.mjs')], kind: 'node' },
].filter((s) => only.length === 0 || only.includes(s.name));

function run(stage) {
  return new Promise((resolve) => {
    const child = spawn(stage.cmd, stage.args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' } });
    let out = '';
    const onData = (d) => { out += d; process.stdout.write(d); };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('close', (code) => resolve({ code: code ?? 1, out }));
  });
}

function counts(stage, { code, out }) {
  const clean = out.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '');
  if (stage.kind === 'node') {
    const pass = Number(clean.match(/^[#ℹ] pass (\d+)/m)?.[1] ?? 0);
    const fail = Number(clean.match(/^[#ℹ] fail (\d+)/m)?.[1] ?? 0);
    return { pass, fail: fail || (code !== 0 ? 1 : 0) };
  }
  if (stage.kind === 'wtr') {
    const all = [...clean.matchAll(/(\d+) passed, (\d+) failed/g)];
    const last = all.at(-1);
    const pass = Number(last?.[1] ?? 0);
    const fail = Number(last?.[2] ?? 0);
    return { pass, fail: fail || (code !== 0 ? 1 : 0) };
  }
  return code === 0 ? { pass: 1, fail: 0 } : { pass: 0, fail: 1 };
}

let passed = 0;
let failed = 0;
const lines = [];
for (const stage of stages) {
  console.log(`\n=== ${stage.name} ===`);
  const t0 = Date.now();
  const res = await run(stage);
  const c = counts(stage, res);
  passed += c.pass;
  failed += c.fail;
  lines.push(`${stage.name.padEnd(10)} ${c.pass} passed, ${c.fail} failed  (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  if (stage.name === 'build' && res.code !== 0) {
    lines.push('build failed: skipping browser and e2e stages');
    failed += 1;
    break;
  }
}
console.log('\n=== summary ===');
for (const l of lines) console.log(l);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
