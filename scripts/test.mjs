// `npm test`: typecheck, lint, unit tests (node), build, browser tests (web-test-runner), e2e tests
// (playwright-core on the built app). Prints each stage and one closing summary line.
//
// Three lanes run side by side (decision 029, revised in decision 089): typecheck → lint → unit → the two files that
// compare the engines and the hosts (unit-3) in one; the other files that run the app's workers in threads (unit-2),
// then the browser stage, in the second; the build, then the e2e stage, in the third. Clean-clone runs on this 2-core
// machine: two lanes 772 s wall, three 644 s, four 711 s (the unit stages doubled under contention); which stage goes
// where only evens out the lanes' ends (decision 089).
// Each stage's output is buffered and printed whole when the stage ends, so the log reads stage by stage.
// `npm test -- <stage> …` runs only the named stages; `--serial` runs them one after the other.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { isolated } from './one-process.mjs';

// Node 20's --test takes files, not folders or globs.
const files = (dir, suffix) => readdirSync(dir).filter((f) => f.endsWith(suffix)).sort().map((f) => `${dir}/${f}`);

/**
 * The pool port's conformance file (both engines, every layout of every fixture) and the page-and-CLI agreement (both
 * hosts, every fixture): in one process in lane 1 after the unit stage (unit-3), to even out the lanes' ends.
 */
const ENGINES_AND_HOSTS = ['test/unit/pool-port.test.ts', 'test/unit/page-cli-agree.test.ts'];

const unitFiles = files('test/unit', '.test.ts');
const UNIT = { shared: unitFiles.filter((f) => !isolated(f)), own: unitFiles.filter((f) => isolated(f) && !ENGINES_AND_HOSTS.includes(f)) };

const argv = process.argv.slice(2);
const serial = argv.includes('--serial');
const only = argv.filter((a) => !a.startsWith('--'));
const all = [
  // every runtime's program in one build: tsconfig.check.json (decision 086)
  { name: 'typecheck', lane: 1, cmd: 'npx', args: ['tsc', '-b', 'tsconfig.check.json'], kind: 'check' },
  { name: 'lint', lane: 1, cmd: 'npx', args: ['biome', 'check', '--error-on-warnings', '.'], kind: 'check' },
  // the unit files in one process (scripts/one-process.mjs: a node + tsx start per file cost more than most files'
  // tests), but those that change the process for the files after them (V8 flags, worker threads) in another one
  // (unit-2): each of those sets the flags itself or runs with them, none expects Node's defaults. Not on unit-2's
  // command line: the CLI's threads take the parent's execArgv, where Worker refuses V8 flags (page-cli-agree failed)
  { name: 'unit', lane: 1, cmd: 'node', args: ['--import', 'tsx', '--test-reporter=spec', 'scripts/one-process.mjs', ...UNIT.shared], kind: 'node' },
  { name: 'unit-2', lane: 2, cmd: 'node', args: ['--import', 'tsx', '--test-reporter=spec', 'scripts/one-process.mjs', ...UNIT.own], kind: 'node' },
  { name: 'unit-3', lane: 1, cmd: 'node', args: ['--import', 'tsx', '--test-reporter=spec', 'scripts/one-process.mjs', ...ENGINES_AND_HOSTS], kind: 'node' },
  { name: 'build', lane: 3, cmd: 'npx', args: ['vite', 'build', '--mode', 'test', '--logLevel', 'warn'], kind: 'check' },
  { name: 'browser', lane: 2, cmd: 'npx', args: ['web-test-runner'], kind: 'wtr' },
  // the e2e files one after the other in one process and one shared Chromium, each file on its own origin
  // (scripts/e2e-one-process.mjs: a node + playwright-core start and a Chromium launch once, not per file)
  { name: 'e2e', lane: 3, cmd: 'node', args: ['--test-reporter=spec', 'scripts/e2e-one-process.mjs', ...files('test/e2e', '.test.mjs')], kind: 'node', needs: 'build' },
];
/** `npm test -- unit` runs every unit stage (unit, unit-2, unit-3). */
const stages = all.filter((s) => only.length === 0 || only.includes(s.name) || only.includes(s.name.replace(/-\d$/, '')));

function run(stage) {
  return new Promise((resolve) => {
    const child = spawn(stage.cmd, stage.args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' } });
    let out = '';
    const onData = (d) => {
      out += d;
    };
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

/** web-test-runner redraws a progress bar; in a log only its last frame is worth keeping. */
function readable(stage, out) {
  if (stage.kind !== 'wtr') return out;
  return out
    .replace(/\u001b\[[0-9;]*[A-Za-z]/g, '')
    .split('\n')
    .filter((l, i, ls) => !/^\s*(Running tests\.\.\.|Chromium: \|)/.test(l) || ls.slice(i + 1).every((m) => !/^\s*Chromium: \|/.test(m)))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n');
}

const results = new Map();
const failedBuild = { value: false };
const t00 = Date.now();

let buildDone;
const built = new Promise((r) => {
  buildDone = r;
});

async function runStage(stage) {
  // a stage that needs the build waits for it (the build runs in lane 3) unless the build is not among the stages run
  if (stage.needs && stages.some((s) => s.name === stage.needs)) await built;
  if (stage.needs && failedBuild.value) {
    results.set(stage.name, { skipped: true });
    return;
  }
  const t0 = Date.now();
  const res = await run(stage);
  const c = counts(stage, res);
  const secs = (Date.now() - t0) / 1000;
  console.log(`\n=== ${stage.name} === (${secs.toFixed(1)} s, ended at ${((Date.now() - t00) / 1000).toFixed(0)} s)`);
  process.stdout.write(readable(stage, res.out));
  results.set(stage.name, { ...c, secs });
  if (stage.name === 'build' && res.code !== 0) failedBuild.value = true;
  if (stage.name === 'build') buildDone();
}

async function lane(list) {
  for (const s of list) await runStage(s);
}

if (serial) await lane(stages);
else await Promise.all([1, 2, 3].map((n) => lane(stages.filter((s) => s.lane === n))));

let passed = 0;
let failed = 0;
const lines = [];
for (const stage of stages) {
  const r = results.get(stage.name);
  if (r.skipped) continue;
  passed += r.pass;
  failed += r.fail;
  lines.push(`${stage.name.padEnd(10)} ${r.pass} passed, ${r.fail} failed  (${r.secs.toFixed(1)} s)`);
}
if (failedBuild.value && stages.some((s) => s.needs)) {
  lines.push('build failed: skipping the e2e stage');
  failed += 1;
}
console.log('\n=== summary ===');
for (const l of lines) console.log(l);
console.log(`total      ${((Date.now() - t00) / 1000).toFixed(1)} s wall${serial ? ' (serial)' : ' (three lanes)'}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
