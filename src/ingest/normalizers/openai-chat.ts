import { chatToSteps, withProviderFill } from '../chat-steps';
import { toolsText } from '../../wire/tools';
import { defineNormalizer, RecordError } from '../normalizer';
import { isObject, metadataOf, num, str } from '../../contract/json';
import { openaiMessage } from '../../contract/message';

const OWN = ['messages', 'tools', 'functions', 'id', 'session_id', 'conversation_id', 'reward', 'score', 'model', 'data_source', 'uid', 'agent'];

function looksLike(v: unknown): boolean {
  if (!isObject(v) || !Array.isArray(v.messages) || v.messages.length === 0) return false;
  if ('request' in v || 'response' in v || 'choices' in v) return false;
  return v.messages.every((m) => isObject(m) && typeof m.role === 'string' && ('content' in m || 'tool_calls' in m || 'function_call' in m));
}

/** OpenAI chat fine-tuning JSONL: `{messages, tools?, parallel_tool_calls?}` per line. */
export const openaiChat = withProviderFill(
  defineNormalizer({
    id: 'openai-chat',
    promptRows: true,
    parallel: true,
    label: 'OpenAI chat fine-tuning (messages)',
    detect(sample) {
      if (!sample.length) return 0;
      const hits = sample.filter(looksLike).length;
      return hits === 0 ? 0 : 0.5 + 0.4 * (hits / sample.length);
    },
    normalize(record) {
      const v = record.value;
      if (!isObject(v) || !Array.isArray(v.messages)) throw new RecordError('no "messages" array');
      const messages = v.messages.map(openaiMessage);
      const steps = chatToSteps(messages);
      return [
        {
          trajectory_uid: str(v.session_id ?? v.conversation_id ?? v.id),
          prompt_uid: str(v.uid),
          common: {
            tools: toolsText(v.tools, v.functions),
            model: str(v.model),
            agent: str(v.agent),
            data_source: str(v.data_source),
            metadata: metadataOf(v, OWN),
          },
          steps: steps.map((s, i) => (i === steps.length - 1 ? { ...s, reward: num(v.reward ?? v.score) } : s)),
        },
      ];
    },
  }),
);
