import { chatToSteps, withProviderFill } from '../chat-steps';
import { toolsText } from '../../wire/tools';
import { defineNormalizer, RecordError } from '../normalizer';
import { isObject, num, type Obj, str } from '../../contract/json';
import { openaiMessage } from '../../contract/message';
import { looseMessage, safeMetaValue } from './loose-chat';

const EPISODE_KEYS = ['episode_id', 'episode', 'episode_index'];

function turns(v: Obj): Obj[] | null {
  const c = v.conversations ?? v.messages;
  return Array.isArray(c) && c.length && c.every((m) => isObject(m) && typeof m.role === 'string') ? (c as Obj[]) : null;
}

/** Only episode-keyed exports: plain `{messages}` belongs to openai-chat and `{conversations}` to sharegpt. */
function isEpisode(v: unknown): v is Obj {
  return isObject(v) && EPISODE_KEYS.some((k) => k in v) && turns(v) !== null;
}

const OWN = new Set(['episode_id', 'episode', 'episode_index', 'id', 'conversations', 'messages', 'reward', 'score', 'return', 'metadata', 'tools']);

/** Per-episode conversation exports (RL environments): `{episode_id, conversations | messages, reward | score, metadata}`. */
export const conversations = withProviderFill(
  defineNormalizer({
    id: 'conversations',
    parallel: true,
    label: 'Episode conversations (episode_id + messages)',
    detect(sample) {
      const hits = sample.filter(isEpisode).length;
      return hits ? 0.9 + 0.06 * (hits / sample.length) : 0;
    },
    normalize(record) {
      const v = record.value;
      if (!isObject(v) || !turns(v)) throw new RecordError('no "conversations" or "messages" list of {role, content}');
      const messages = turns(v)!.flatMap((m) => (Array.isArray(m.content) ? looseMessage(m) : [openaiMessage(m)]));
      const meta = isObject(v.metadata) ? v.metadata : {};
      const metadata: Record<string, string> = {};
      for (const [k, val] of Object.entries({ ...meta, ...Object.fromEntries(Object.entries(v).filter(([k]) => !OWN.has(k))) })) {
        const s = safeMetaValue(val);
        if (s !== null) metadata[k] = s;
      }
      const steps = chatToSteps(messages);
      const reward = v.reward ?? v.score ?? v.return;
      steps[steps.length - 1].reward = num(reward);
      return [
        {
          trajectory_uid: str(v.episode_id ?? v.episode ?? v.id),
          prompt_uid: str(meta.prompt_uid ?? meta.task_id ?? meta.prompt_id ?? v.task_id),
          common: {
            data_source: str(meta.data_source ?? meta.env ?? v.data_source),
            model: str(meta.model ?? v.model),
            agent: str(meta.agent ?? v.agent),
            channel: str(meta.split ?? v.split) === 'val' || str(meta.split ?? v.split) === 'validation' ? 'val' : 'train',
            tools: toolsText(v.tools ?? meta.tools),
            metadata: Object.keys(metadata).length ? metadata : null,
          },
          steps,
        },
      ];
    },
  }),
);
