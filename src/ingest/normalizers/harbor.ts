/**
 * Harbor (and its predecessor sandboxes) trace exports, `harbor traces export`: one row per episode of a
 * trial, `{conversations, agent, model, model_provider, date, task, episode: 'episode-N', run_id,
 * trial_name, result, tool_definitions?}`, each episode repeating the growing history up to its own
 * assistant turn. An episode is one LLM call: its last assistant turn is the response, everything
 * before it the context. The episodes of a trial are the steps of one trajectory; `result` (a reward
 * bucket such as "1.0", or an exception name) is the trial's outcome, so it lands on the last episode.
 */
import { withProviderFill } from '../chat-steps';
import { toolsText } from '../../wire/tools';
import { defineNormalizer, RecordError } from '../normalizer';
import { redactSecrets } from '../../record/redact';
import type { StepDraft, TrajectoryDraft } from '../../contract/step';
import { isObject, num, type Obj, str } from '../../contract/json';
import { openaiMessage } from '../../contract/message';
import { safeMetaValue } from './loose-chat';

const EPISODE = /^episode-(\d+)$/;

function isHarborRow(v: unknown): v is Obj {
  return (
    isObject(v) &&
    typeof v.episode === 'string' &&
    EPISODE.test(v.episode) &&
    typeof v.trial_name === 'string' &&
    'run_id' in v &&
    Array.isArray(v.conversations) &&
    v.conversations.every((m) => isObject(m) && typeof m.role === 'string')
  );
}

const OWN = new Set(['conversations', 'agent', 'model', 'model_provider', 'task', 'result', 'tool_definitions']);

interface Pending {
  episode: number;
  step: StepDraft;
}

interface Trial {
  uid: string;
  task: string | null;
  result: unknown;
  steps: Pending[];
}

interface HarborState {
  trials: Map<string, Trial>;
}

function episodeStep(v: Obj, line: number): StepDraft {
  const messages = (v.conversations as Obj[]).map(openaiMessage);
  let last = messages.length - 1;
  while (last >= 0 && messages[last].role !== 'assistant') last--;
  const metadata: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) {
    if (OWN.has(k)) continue;
    const s = safeMetaValue(val);
    if (s !== null) metadata[k] = s;
  }
  const { conversations: _c, ...rest } = v;
  return {
    messages: last >= 0 ? messages.slice(0, last) : messages,
    response: last >= 0 ? messages[last] : null,
    agent: str(v.agent),
    model: str(v.model),
    provider: str(v.model_provider),
    tools: toolsText(v.tool_definitions),
    metadata,
    source_line: line,
    // the row without the history it repeats (the history is in `messages`)
    raw: JSON.stringify(redactSecrets(rest)),
  };
}

/** Harbor `traces export` rows: the episodes of a trial become the steps of one trajectory. */
export const harbor = withProviderFill(
  defineNormalizer<HarborState>({
    id: 'harbor',
    label: 'Harbor trace export (episode rows of trials)',
    detect(sample) {
      const items = sample.length === 1 && Array.isArray(sample[0]) ? sample[0] : sample;
      const hits = items.filter(isHarborRow).length;
      return hits ? 0.9 + 0.08 * (hits / items.length) : 0;
    },
    createState: () => ({ trials: new Map() }),
    normalize(record, _ctx, state) {
      const v = record.value;
      const rows = Array.isArray(v) ? v : [v];
      for (const row of rows) {
        if (!isHarborRow(row)) throw new RecordError('not a Harbor trace row: expected {conversations, episode: "episode-N", run_id, trial_name}');
        const uid = `${str(row.run_id) ?? ''}/${row.trial_name}`;
        let trial = state.trials.get(uid);
        if (!trial) state.trials.set(uid, (trial = { uid, task: str(row.task), result: row.result, steps: [] }));
        trial.result = row.result ?? trial.result;
        trial.steps.push({ episode: Number(EPISODE.exec(String(row.episode))![1]), step: episodeStep(row, record.line) });
      }
      return [];
    },
    flush(_ctx, state) {
      const out: TrajectoryDraft[] = [];
      for (const t of state.trials.values()) {
        // a stable sort: episodes that repeat keep the order they came in
        const steps = t.steps.sort((a, b) => a.episode - b.episode).map((p) => ({ ...p.step, step_index: p.episode }));
        const reward = num(t.result);
        const last = steps[steps.length - 1];
        if (reward !== null) last.reward = reward;
        out.push({ trajectory_uid: t.uid, prompt_uid: t.task, steps });
      }
      state.trials.clear();
      return out;
    },
  }),
);
