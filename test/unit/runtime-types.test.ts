/**
 * Each runtime is type-checked with only its own globals (tsconfig.{core,page,worker,node}.json, decision 086): a use
 * of another runtime's API in its code is a type error. Each config compiles a few lines in a scratch folder: what
 * the runtime has must pass, what it lacks must fail by name (so a `DOM` or `node` added to the wrong config fails
 * here, not only when some code leaks).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { scratchDir } from '../scratch.mjs';

const ROOT = resolve(import.meta.dirname, '../..');
const scratch = scratchDir('runtime-types-', join(ROOT, '.tmp'));

interface Runtime {
  has: string[];
  lacks: Record<string, string>;
}

const RUNTIMES: Record<string, Runtime> = {
  core: {
    has: ['new TextEncoder().encode("x")', 'new Blob(["x"]).size', 'fetch', 'new ReadableStream()', 'crypto.subtle', 'new URL("x:y").href'],
    lacks: { document: 'document.title', window: 'window.name', process: 'process.env.HOME', Buffer: 'Buffer.from("x")', HTMLElement: 'HTMLElement' },
  },
  page: {
    has: ['document.title', 'window.name', 'localStorage.length', 'new Worker("w.js")'],
    lacks: { process: 'process.env.HOME', Buffer: 'Buffer.from("x")', FileSystemSyncAccessHandle: 'null as unknown as FileSystemSyncAccessHandle' },
  },
  worker: {
    has: ['postMessage(1)', 'null as unknown as FileSystemSyncAccessHandle', 'navigator.storage'],
    lacks: { document: 'document.title', window: 'window.name', process: 'process.env.HOME' },
  },
  node: {
    has: ['process.env.HOME', 'Buffer.from("x")', 'new Blob(["x"]).size'],
    lacks: { document: 'document.title', window: 'window.name' },
  },
};

describe('per-runtime type checking', () => {
  for (const [name, rt] of Object.entries(RUNTIMES)) {
    it(`tsconfig.${name}.json: ${rt.has.length} uses of its own globals pass; ${Object.keys(rt.lacks).join(', ')} are type errors`, () => {
      const dir = join(scratch, name);
      mkdirSync(dir);
      const files = ['has.ts', ...Object.keys(rt.lacks).map((g) => `lacks-${g}.ts`)];
      // apache-arrow's declarations reference Node's types: every real program imports it, so this one does too
      writeFileSync(join(dir, 'has.ts'), `export type { Table } from 'apache-arrow';\n${rt.has.map((e, i) => `export const v${i} = ${e};`).join('\n')}\n`);
      for (const [g, e] of Object.entries(rt.lacks)) writeFileSync(join(dir, `lacks-${g}.ts`), `export const v = ${e};\n`);
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ extends: join(ROOT, `tsconfig.${name}.json`), include: [], files }));
      const run = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', dir, '--pretty', 'false'], { encoding: 'utf8' });
      const errors = `${run.stdout}${run.stderr}`.split('\n').filter((l) => l.includes('error TS'));
      assert.deepEqual(errors.filter((l) => l.includes('has.ts')), [], `${name} lacks what it should have`);
      for (const g of Object.keys(rt.lacks)) {
        assert.ok(errors.some((l) => l.includes(`lacks-${g}.ts`) && l.includes(`'${g}'`)), `${name} should not know ${g}:\n${errors.join('\n')}`);
      }
    });
  }
});
