// Runs the given e2e files in this one process (`node --test-reporter=spec scripts/e2e-one-process.mjs <file>…`), each
// file's tests inside a suite named by its path (scripts/one-process.mjs), and the files with the default Chromium
// flags in one shared browser, each on its own origin (test/e2e/harness.mjs). A node + playwright-core start is
// ≈ 1.2 CPU-s and a Chromium launch ≈ 1 per file when each file runs alone.
// AW_CPU=1: print each file's CPU-s, Chromium included (scripts/one-process.mjs suitePerFile).
import { after } from 'node:test';
import { suitePerFile } from './one-process.mjs';

process.env.AW_E2E_SHARED = '1';
const { closeSharedBrowser } = await import('../test/e2e/harness.mjs');

suitePerFile(process.argv.slice(2));
after(() => closeSharedBrowser());
