import { defineNormalizer, RecordError } from '../normalizer';
import type { ChatMessage, StepDraft, TrajectoryDraft } from '../step';
import { isObject, metadataOf, num, type Obj, openaiMessage, parseJsonDeep, str } from '../util';

const RESPONSE_KEYS = ['response', 'completion', 'output', 'generation', 'answer'];
const OWN = ['prompt', 'data_source', 'uid', 'index', 'reward', 'score', 'rewards', 'scores', 'model', 'responses', ...RESPONSE_KEYS];
const CHANNEL: Record<string, string> = { train: 'train', training: 'train', val: 'val', valid: 'val', validation: 'val', dev: 'val', test: 'val', eval: 'val' };

function promptMessages(p: unknown): ChatMessage[] | null {
  const v = parseJsonDeep(p);
  if (typeof v === 'string') return [{ role: 'user', content: v }];
  if (Array.isArray(v) && v.every((m) => isObject(m) && 'role' in m)) return v.map(openaiMessage);
  if (isObject(v) && 'role' in v) return [openaiMessage(v)];
  return null;
}

function responseMessage(r: unknown): ChatMessage | null {
  if (r === undefined || r === null) return null;
  const v = typeof r === 'string' ? r : parseJsonDeep(r);
  if (typeof v === 'string') return { role: 'assistant', content: v };
  if (Array.isArray(v)) {
    const last = v.filter(isObject).at(-1);
    return last ? openaiMessage({ role: 'assistant', ...last }) : null;
  }
  if (isObject(v)) return openaiMessage({ role: 'assistant', ...v });
  return { role: 'assistant', content: str(v) };
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

/** The prompt's group id: veRL `uid`, else an index scoped by data source so two datasets' row 0 never meet. */
function groupId(v: Obj, extra: Obj): string | null {
  const uid = str(v.uid ?? extra.uid ?? extra.prompt_uid);
  if (uid) return uid;
  const index = str(extra.index ?? v.index);
  if (index === null) return null;
  const ds = str(v.data_source);
  return ds ? `${ds}:${index}` : index;
}

/** veRL RL prompt rows and generic `{prompt, response, reward}` rows (JSONL or Parquet). */
export const verl = defineNormalizer({
  id: 'verl',
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
    const common: TrajectoryDraft['common'] = {
      data_source: str(v.data_source),
      model: str(v.model),
      channel: (split && CHANNEL[split]) || 'train',
      metadata: metadataOf(v, OWN),
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
