// One way for test files (test/unit, test/e2e) to get a folder of their own that does not outlive them.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made = new Set();
let hooked = false;

function removeAll() {
  for (const dir of made) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // a process still writing in it (a browser the test never closed): nothing more to do at exit
    }
  }
  made.clear();
}

function onSignal(signal) {
  removeAll();
  // the signal's own effect (the process ends) unless another listener (node:test, playwright) handles it
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

/**
 * A new folder `<parent>/<prefix>XXXXXX` (parent: the system temp folder unless told), removed with everything in it
 * when this process ends: normally, by an uncaught error, or by Ctrl-C/SIGTERM (not SIGKILL). A process is one test
 * file for `node --test` runs, all the shared unit files for `npm test`'s unit stage (scripts/one-process.mjs) and all
 * the files of an e2e stage (scripts/e2e-one-process.mjs): the folders of those live until the stage ends (≈ 60 MB in all).
 *
 * Kept when `AW_KEEP_SCRATCH=1` (each path is printed on stderr at creation), never by default, not even when a test
 * fails: the exit code of a one-process run does not say which file failed, an assertion's message usually says
 * enough, and failing runs left behind are how a developer's /tmp grew to 8.5 GB. To look inside, rerun the one file
 * with AW_KEEP_SCRATCH=1.
 */
export function scratchDir(prefix, parent = tmpdir()) {
  if (!hooked) {
    hooked = true;
    process.on('exit', removeAll);
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }
  mkdirSync(parent, { recursive: true });
  const dir = mkdtempSync(join(parent, prefix));
  if (process.env.AW_KEEP_SCRATCH === '1') console.error(`kept (AW_KEEP_SCRATCH=1): ${dir}`);
  else made.add(dir);
  return dir;
}
