import { hash64 } from '../../util/hash';
import { defineNormalizer, RecordError } from '../normalizer';
import type { ChatMessage, StepDraft, TrajectoryDraft } from '../../contract/step';
import { isObject, metadataOf, num, type Obj, parseJsonDeep, str } from '../../contract/json';
import { openaiMessage } from '../../contract/message';

/** Keys that hold the model's output. `answer` / `ground_truth` are the reward target, never the response. */
const RESPONSE_KEYS = ['response', 'completion', 'output', 'generation'];
const OWN = ['prompt', 'data_source', 'uid', 'index', 'reward', 'score', 'rewards', 'scores', 'model', 'responses', ...RESPONSE_KEYS];
/** What defines a prompt beyond its messages: two rows that differ in any of these are different prompts. */
const PROMPT_DEFINING = ['reward_model', 'ground_truth', 'answer', 'environment_context', 'agent_name', 'tools_kwargs', 'interaction_kwargs'];
/** extra_info keys that say where a row sits, not what it asks. */
const EXTRA_POSITION = new Set(['index', 'split', 'uid', 'prompt_uid']);
/** Splits that are not training data; anything else is 'train'. */
const CHANNEL: Record<string, string> = { val: 'val', valid: 'val', validation: 'val', dev: 'val', test: 'val', eval: 'val' };

function promptMessages(p: unknown): ChatMessage[] | null {
  const v = parseJsonDeep(p);
  if (typeof v === 'string') return [{ role: 'user', content: v }];
  if (Array.isArray(v) && v.every((m) => isObject(m) && 'role' in m)) return v.map(openaiMessage);
  if (isObject(v) && 'role' in v) return [openaiMessage(v)];
  return null;
}

function responseMessage(r: unknown): ChatMessage | null {
  if (r === undefined || r === null) return null;
  // text stays text, even when it looks like JSON: it is what the model wrote
  if (Array.isArray(r)) {
    const last = r.filter(isObject).at(-1);
    return last ? openaiMessage({ role: 'assistant', ...last }) : null;
  }
  if (isObject(r)) return openaiMessage({ role: 'assistant', ...r });
  return { role: 'assistant', content: str(r) };
}

function firstResponse(v: Obj): unknown {
  for (const k of RESPONSE_KEYS) if (v[k] !== undefined && v[k] !== null) return v[k];
  return undefined;
}

function recordScore(v: unknown): number {
  if (!isObject(v) || !('prompt' in v) || !promptMessages(v.prompt)) return 0;
  const isList = Array.isArray(parseJsonDeep(v.prompt));
  if ('reward_model' in v || 'ability' in v || (isList && ('data_source' in v || 'extra_info' in v))) return 0.95;
  const hasResponse = firstResponse(v) !== undefined || Array.isArray(v.responses);
  const hasReward = 'reward' in v || 'score' in v;
  if (hasResponse && hasReward) return 0.75;
  if (hasResponse) return 0.5;
  return 0.3;
}

/** The row's content as a prompt: its messages plus everything that changes the task (ground truth, environment, seeds in extra_info). */
function promptContent(v: Obj, extra: Obj): string {
  const own: Obj = {};
  for (const k of PROMPT_DEFINING) own[k] = parseJsonDeep(v[k]); // JSON.stringify leaves out the undefined ones
  const ex: Obj = {};
  for (const [k, val] of Object.entries(extra)) if (!EXTRA_POSITION.has(k)) ex[k] = val;
  return JSON.stringify([parseJsonDeep(v.prompt), own, ex]);
}

/**
 * The prompt's group id: veRL `uid`, else the index scoped by data source so two datasets' row 0 never meet, and by the
 * row's content, so rows that share an index but differ (seeds, environments, ground truths) stay different prompts.
 */
function groupId(v: Obj, extra: Obj): string | null {
  const uid = str(v.uid ?? extra.uid ?? extra.prompt_uid);
  if (uid) return uid;
  const index = str(extra.index ?? v.index);
  if (index === null) return null;
  const ds = str(v.data_source);
  return `${ds ? `${ds}:${index}` : index}:${hash64(promptContent(v, extra)).slice(0, 8)}`;
}

/** The reward target: `reward_model.ground_truth`, else `ground_truth`, else `answer` (text; structured targets as JSON text). */
function groundTruth(v: Obj, reward: Obj): { ground_truth?: string; reward_style?: string } {
  const gt = reward.ground_truth ?? v.ground_truth ?? v.answer;
  const out: { ground_truth?: string; reward_style?: string } = {};
  if (gt !== undefined && gt !== null) out.ground_truth = typeof gt === 'string' ? gt : JSON.stringify(gt);
  const style = str(reward.style);
  if (style) out.reward_style = style;
  return out;
}

/** veRL RL prompt rows and generic `{prompt, response, reward}` rows (JSONL or Parquet). */
export const verl = defineNormalizer({
  id: 'verl',
  promptRows: true,
  parallel: true,
  label: 'veRL / RL prompt rows (prompt, reward_model, extra_info)',
  detect(sample) {
    if (!sample.length) return 0;
    return sample.reduce<number>((s, v) => s + recordScore(v), 0) / sample.length;
  },
  normalize(record) {
    const v = record.value;
    if (!isObject(v)) throw new RecordError('expected an object with a "prompt"');
    const prompt = promptMessages(v.prompt);
    if (!prompt) throw new RecordError('"prompt" is neither text nor a list of {role, content} messages');
    const extraIn = parseJsonDeep(v.extra_info);
    const extra = isObject(extraIn) ? extraIn : {};
    const split = str(extra.split)?.toLowerCase();
    const rewardIn = parseJsonDeep(v.reward_model);
    const target = groundTruth(v, isObject(rewardIn) ? rewardIn : {});
    const meta = metadataOf(v, OWN);
    const common: TrajectoryDraft['common'] = {
      data_source: str(v.data_source),
      model: str(v.model),
      channel: (split && CHANNEL[split]) || 'train',
      metadata: meta || Object.keys(target).length ? { ...meta, ...target } : null,
    };
    const prompt_uid = groupId(v, extra);
    const reward = num(v.reward ?? v.score);
    const rewards = Array.isArray(v.rewards) ? v.rewards : Array.isArray(v.scores) ? v.scores : null;
    const rollouts = Array.isArray(v.responses) ? v.responses : [firstResponse(v)];
    return rollouts.map((r, i): TrajectoryDraft => {
      const step: StepDraft = { messages: prompt, response: responseMessage(r), reward: rewards ? num(rewards[i]) : reward };
      return { prompt_uid, common, steps: [step] };
    });
  },
});
