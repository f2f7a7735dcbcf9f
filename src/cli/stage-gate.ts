/**
 * The gate between the DuckDB thread writing a staged batch (duck-thread.ts) and the main thread removing the stage
 * folder on Ctrl-C (main.ts, native-db.ts): `[lock, ended]` in shared memory. Without it the main thread's removal and
 * `process.exit` ran while the DuckDB thread was still converting a batch, whose write then re-created the folder after
 * the removal (an interrupted import left `<pool>.stage-…` behind in about 1 run of 12). A batch is written holding the
 * lock and only while the stage has not ended; the removal takes the lock and ends the stage first.
 */
export function stageGate(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(8));
}

function withLock<T>(gate: Int32Array, fn: () => T): T {
  while (Atomics.compareExchange(gate, 0, 0, 1) !== 0) Atomics.wait(gate, 0, 1, 50);
  try {
    return fn();
  } finally {
    Atomics.store(gate, 0, 0);
    Atomics.notify(gate, 0);
  }
}

/** Run `write` (a batch file into the stage folder) unless the stage has ended; false when it had. */
export function writeStaged(gate: Int32Array, write: () => void): boolean {
  return withLock(gate, () => {
    if (Atomics.load(gate, 1)) return false;
    write();
    return true;
  });
}

/** End the stage (no batch is written after this returns) and run `remove` (the folder's removal). */
export function endStage(gate: Int32Array, remove: () => void): void {
  withLock(gate, () => {
    Atomics.store(gate, 1, 1);
    remove();
  });
}
