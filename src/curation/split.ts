/** Deterministic train/val split by trajectory (or by prompt group), written to curation.split. */
import type { PoolClient } from '../pool/client';
import { sqlNumber, sqlString } from '../pool/sql';

export interface SplitOptions {
  /** Fraction of keys sent to 'val', 0–1. */
  valFraction: number;
  seed?: string;
  /** trajectory (default): no trajectory spans splits; prompt: whole GRPO groups stay together. */
  by?: 'trajectory' | 'prompt';
}

export async function assignSplit(pool: PoolClient, opts: SplitOptions): Promise<{ train: number; val: number }> {
  const { valFraction, seed = 'aw', by = 'trajectory' } = opts;
  if (!(valFraction >= 0 && valFraction <= 1)) throw new Error(`invalid valFraction: ${valFraction} (use a number from 0 to 1, e.g. 0.1)`);
  const key = by === 'prompt' ? 'coalesce(prompt_uid, trajectory_uid)' : 'trajectory_uid';
  await pool.exec(`INSERT INTO curation (step_id, split)
      SELECT step_id, split_of(${key}, ${sqlNumber(valFraction)}, ${sqlString(seed)}) FROM steps
      ON CONFLICT (step_id) DO UPDATE SET split = excluded.split`);
  await pool.checkpoint();
  const rows = await pool.rows(`SELECT count(*) FILTER (WHERE c.split = 'train')::INTEGER AS train, count(*) FILTER (WHERE c.split = 'val')::INTEGER AS val
    FROM steps s JOIN curation c USING (step_id)`);
  return { train: Number(rows[0].train), val: Number(rows[0].val) };
}
