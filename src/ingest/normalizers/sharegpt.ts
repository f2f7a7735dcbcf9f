import { chatToSteps, withProviderFill } from '../chat-steps';
import { toolsText } from '../../wire/tools';
import { defineNormalizer, RecordError } from '../normalizer';
import type { ChatMessage, ToolCall, TrajectoryDraft } from '../../contract/step';
import { isObject, metadataOf, num, type Obj, parseJsonDeep, str } from '../../contract/json';
import { contentToText, normalizeArguments, splitInlineThink } from '../../contract/message';

const ROLE: Record<string, string> = {
  human: 'user',
  user: 'user',
  gpt: 'assistant',
  assistant: 'assistant',
  chatgpt: 'assistant',
  bing: 'assistant',
  bard: 'assistant',
  model: 'assistant',
  system: 'system',
  observation: 'tool',
  tool: 'tool',
  function: 'tool',
  ipython: 'tool',
};

const OWN = ['conversations', 'conversation', 'system', 'tools', 'id', 'conversation_id', 'uid', 'data_source', 'model', 'reward', 'score'];
const CONTAINER_KEYS = ['data', 'conversations', 'items', 'records', 'examples', 'dialogs', 'samples'];

function turnsOf(v: Obj): unknown[] | null {
  const c = parseJsonDeep(v.conversations ?? v.conversation);
  return Array.isArray(c) ? c : null;
}

function isTurn(t: unknown): boolean {
  return isObject(t) && ((typeof t.from === 'string' && 'value' in t) || (typeof t.role === 'string' && 'content' in t));
}

function isShareGpt(v: unknown): boolean {
  if (!isObject(v)) return false;
  const turns = turnsOf(v);
  return turns !== null && turns.length > 0 && turns.every(isTurn);
}

/** Conversations a record holds: itself, or a container object/array of conversations. */
function conversations(v: unknown): Obj[] {
  if (Array.isArray(v)) return v.flatMap(conversations);
  if (!isObject(v)) return [];
  if (isShareGpt(v)) return [v];
  const turns = turnsOf(v);
  if (turns?.length && turns.every((t) => Array.isArray(t))) return turns.map((t) => ({ conversations: t }));
  for (const k of CONTAINER_KEYS) {
    const c = parseJsonDeep(v[k]);
    if (Array.isArray(c) && c.some(isShareGpt)) return c.flatMap(conversations);
  }
  return [];
}

/**
 * ShareGPT function_call turns carry no call id; the ids made up here (to pair each observation with
 * its call) start with this prefix, and the steps say so in `metadata.tool_call_ids = 'synthetic'`.
 */
export const SYNTHETIC_ID_PREFIX = 'sharegpt_call_';

function hasSyntheticIds(messages: readonly ChatMessage[]): boolean {
  return messages.some((m) => m.tool_calls?.some((c) => c.id?.startsWith(SYNTHETIC_ID_PREFIX)));
}

function callsOf(value: unknown, turn: number): ToolCall[] {
  const parsed = parseJsonDeep(value);
  const list = Array.isArray(parsed) ? parsed : [parsed];
  const out: ToolCall[] = [];
  list.forEach((c, j) => {
    if (!isObject(c)) return;
    const fn = isObject(c.function) ? c.function : c;
    const name = str(fn.name);
    if (name) out.push({ id: str(c.id) ?? `${SYNTHETIC_ID_PREFIX}${turn}_${j}`, type: 'function', function: { name, arguments: normalizeArguments(fn.arguments ?? fn.parameters ?? fn.args) } });
  });
  return out;
}

/** ShareGPT turns → chat messages; function_call turns carry tool calls, observations answer them in order. */
export function shareGptMessages(turns: readonly unknown[], system: unknown): ChatMessage[] {
  const out: ChatMessage[] = [];
  const sys = str(system);
  if (sys) out.push({ role: 'system', content: sys });
  const pending: ToolCall[] = [];
  turns.forEach((t, i) => {
    if (!isObject(t)) return;
    const from = (str(t.from ?? t.role) ?? 'user').toLowerCase();
    const value = t.value !== undefined ? t.value : t.content;
    if (from === 'function_call' || from === 'tool_call') {
      const calls = callsOf(value, i);
      if (!calls.length) {
        out.push(splitInlineThink({ role: 'assistant', content: str(value) }));
        return;
      }
      out.push({ role: 'assistant', content: null, tool_calls: calls });
      pending.push(...calls);
      return;
    }
    const role = ROLE[from] ?? from;
    const { content, parts } = contentToText(value);
    const m: ChatMessage = { role, content };
    if (parts !== null) m.parts = parts;
    if (role === 'tool') {
      const call = pending.shift();
      if (call) {
        m.tool_call_id = call.id;
        m.name = call.function.name;
      }
    }
    if (typeof t.name === 'string') m.name = t.name;
    out.push(splitInlineThink(m));
  });
  return out;
}

/** ShareGPT / LLaMA-Factory conversations: `{conversations: [{from, value}], system?, tools?}`. */
export const sharegpt = withProviderFill(
  defineNormalizer({
    id: 'sharegpt',
    promptRows: true,
    parallel: true,
    label: 'ShareGPT conversations (from/value)',
    detect(sample) {
      if (!sample.length) return 0;
      let sum = 0;
      for (const v of sample) {
        const cs = conversations(v);
        if (!cs.length) continue;
        const fromValue = cs.some((c) => turnsOf(c)?.some((t) => isObject(t) && typeof t.from === 'string'));
        sum += fromValue ? 0.95 : 0.7;
      }
      return sum / sample.length;
    },
    normalize(record) {
      const cs = conversations(record.value);
      if (!cs.length) throw new RecordError('no "conversations" list of {from, value} turns');
      return cs.map((c): TrajectoryDraft => {
        const messages = shareGptMessages(turnsOf(c) ?? [], c.system);
        const steps = chatToSteps(messages);
        const tools = parseJsonDeep(c.tools);
        return {
          trajectory_uid: str(c.id ?? c.conversation_id),
          prompt_uid: str(c.uid),
          common: {
            tools: Array.isArray(tools) ? toolsText(tools.map((t) => (isObject(t) && !('type' in t) && 'name' in t ? { type: 'function', function: t } : t))) : null,
            model: str(c.model),
            data_source: str(c.data_source),
            metadata: hasSyntheticIds(messages) ? { ...metadataOf(c, OWN), tool_call_ids: 'synthetic' } : metadataOf(c, OWN),
          },
          steps: steps.map((s, i) => (i === steps.length - 1 ? { ...s, reward: num(c.reward ?? c.score) } : s)),
        };
      });
    },
  }),
);
