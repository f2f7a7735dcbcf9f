// The dashboard's own queries (src/views/dashboard/queries.ts, unfiltered and with a filter from the
// filter bar), run unchanged by the workbench and by native DuckDB over the same 1 M-step `steps`
// table, with the same schema (src/pool/schema.ts). Needs `node --import tsx` (npm run bench does it).
import { filterWhere } from '../src/curation/filter.ts';
import { DDL, trajectoryStatsSql } from '../src/pool/schema.ts';
import { breakdownSql, groupCountsSql, groupsSql, OPTIONS_SQL, rewardsSql, summarySql, trajectoriesSql } from '../src/views/dashboard/queries.ts';

export { DDL, trajectoryStatsSql };

const filtered = filterWhere({ models: ['qwen2.5-7b-instruct'], dataSources: ['gsm8k', 'math500'] });

export const ROLLUPS = {
  summary: summarySql(''),
  steps_per_model: breakdownSql('', 'model'),
  reward_histogram: rewardsSql(''),
  grpo_groups: groupsSql(''),
  grpo_group_counts: groupCountsSql(''),
  trajectory_list: trajectoriesSql('', { column: 'reward_sum', descending: true }),
  filter_options: OPTIONS_SQL,
  summary_filtered: summarySql(filtered),
  trajectory_list_filtered: trajectoriesSql(filtered, { column: 'reward_sum', descending: true }),
};

/**
 * Grow `steps` to `rows` rows with copies of the imported steps under new ids (`~k` suffixes). The
 * copies leave the wide text columns NULL (the dashboard reads none of them) so 1 M steps fit the
 * wasm heap; the imported steps keep theirs.
 */
export function growStepsSql(columns, rows, have) {
  const copies = Math.ceil(rows / have);
  const wide = new Set(['messages', 'raw', 'tools', 'response', 'response_text', 'prompt_ids', 'response_ids', 'rollout_log_probs', 'metadata']);
  const sel = columns
    .map((n) => (['step_id', 'trajectory_uid', 'prompt_uid'].includes(n) ? `s.${n} || '~' || r.k AS ${n}` : wide.has(n) ? `NULL AS ${n}` : `s.${n}`))
    .join(', ');
  return `INSERT INTO steps SELECT ${sel} FROM steps s, range(1, ${copies}) r(k) LIMIT ${Math.max(0, rows - have)}`;
}
