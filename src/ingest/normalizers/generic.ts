import { defineNormalizer } from '../normalizer';
import type { ChatMessage } from '../../contract/step';
import { isObject, metadataOf, num, str } from '../../contract/json';
import { contentToText, openaiMessage, splitInlineThink } from '../../contract/message';

const PROMPT_KEYS = ['prompt', 'input', 'question', 'query', 'instruction', 'text', 'problem'];
const ANSWER_KEYS = ['response', 'output', 'answer', 'completion', 'solution'];



function firstKey(v: Record<string, unknown>, keys: readonly string[]): unknown {
  for (const k of keys) if (v[k] !== undefined && v[k] !== null && v[k] !== '') return v[k];
  return undefined;
}

/**
 * Fallback for records no format claims: one step per record, the raw record and its top-level keys
 * kept so nothing is lost; a prompt / answer is picked up from common keys when there is one.
 */
export const generic = defineNormalizer({
  id: 'generic',
  label: 'Generic JSON records',
  detect: (sample) => (sample.some((v) => isObject(v)) ? 0.05 : 0),
  normalize(record) {
    const v = record.value;
    if (!isObject(v)) {
      const s = str(v);
      return [{ steps: [{ messages: [], response: null, metadata: s === null ? null : { value: s } }] }];
    }
    const messages: ChatMessage[] = [];
    if (Array.isArray(v.messages) && v.messages.every(isObject)) messages.push(...v.messages.map(openaiMessage));
    else {
      const prompt = contentToText(firstKey(v, PROMPT_KEYS)).content;
      if (prompt !== null) messages.push({ role: 'user', content: prompt });
    }
    const answer = contentToText(firstKey(v, ANSWER_KEYS)).content;
    return [
      {
        trajectory_uid: str(v.trajectory_uid ?? v.session_id ?? v.trace_id),
        steps: [
          {
            messages,
            response: answer === null ? null : splitInlineThink({ role: 'assistant', content: answer }),
            reward: num(v.reward ?? v.score),
            model: str(v.model),
            data_source: str(v.data_source),
            // Stryker disable next-line ArrayDeclaration: a key named "Stryker was here" is no record's; nothing else is excluded
            metadata: metadataOf(v, []),
          },
        ],
      },
    ];
  },
});
