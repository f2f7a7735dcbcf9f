/**
 * Fine-tuning datasets as LLaMA-Factory, axolotl and TRL read them: alpaca rows
 * (`instruction`/`input`/`output`/`system`/`history`), and the preference shapes — DPO pairs
 * (`chosen`/`rejected`, on alpaca, ShareGPT or `prompt` rows; axolotl's `question` and
 * `chosen_response`/`rejected_response` variants; `chosen_messages`/`rejected_messages` conversations, with
 * `prompt_messages` or not; ms-swift's `messages` with `rejected_messages` or `rejected_response`) and KTO
 * rows (`kto_tag`, TRL's `label`). A pair
 * becomes two trajectories of one prompt group: the chosen response with reward 1, the rejected with
 * reward 0. A KTO row's tag is its last step's reward (1 desirable, 0 not). Plain ShareGPT rows are
 * the `sharegpt` format's.
 */
import { chatToSteps } from '../chat-steps';
import { toolsText } from '../../wire/tools';
import { promptUid } from '../../record/prompt-uid';
import { defineNormalizer, RecordError } from '../normalizer';
import type { ChatMessage, StepDraft, TrajectoryDraft } from '../../contract/step';
import { isObject, metadataOf, num, type Obj, parseJsonDeep, str } from '../../contract/json';
import { openaiMessage } from '../../contract/message';
import { scoreSample } from './score';
import { shareGptMessages } from './sharegpt';

const OWN = [
  'instruction', 'input', 'output', 'system', 'history', 'chosen', 'rejected', 'kto_tag', 'label', 'prompt', 'completion',
  'question', 'chosen_response', 'rejected_response', 'conversations', 'messages', 'tools', 'id',
  'chosen_messages', 'rejected_messages', 'prompt_messages',
];

const text = (v: unknown): v is string => typeof v === 'string';
const turns = (v: Obj): unknown[] | null => {
  const c = parseJsonDeep(v.conversations ?? v.messages);
  return Array.isArray(c) && c.length && c.every((t) => isObject(t) && ('from' in t || 'role' in t)) ? c : null;
};
const pair = (v: Obj) =>
  ('chosen' in v && 'rejected' in v) ||
  ('chosen_response' in v && 'rejected_response' in v) ||
  ('chosen_messages' in v && 'rejected_messages' in v) ||
  // ms-swift: `messages` is the chosen conversation
  (turns(v) !== null && ('rejected_messages' in v || 'rejected_response' in v));
const ktoTag = (v: Obj): boolean | null => (typeof v.kto_tag === 'boolean' ? v.kto_tag : typeof v.label === 'boolean' && ('completion' in v || turns(v)) ? v.label : null);
const isAlpaca = (v: Obj) => text(v.instruction) && ('output' in v || pair(v));

function recordScore(v: unknown): number {
  if (!isObject(v)) return 0;
  const shaped = isAlpaca(v) || turns(v) !== null || 'prompt' in v || text(v.question);
  // TRL's implicit prompt: chosen and rejected are whole conversations
  if (pair(v) && (shaped || Array.isArray(parseJsonDeep(v.chosen ?? v.chosen_messages)))) return 0.97;
  if (!shaped) return 0;
  if (ktoTag(v) !== null) return 0.97;
  // plain alpaca SFT rows: below a user's enabled alpaca mapping (0.85), above the generic fallback
  return isAlpaca(v) && !turns(v) ? 0.8 : 0;
}

/** One dataset value as a message: text, a ShareGPT turn, an OpenAI message. */
function asMessages(v: unknown, role = 'assistant'): ChatMessage[] {
  const p = parseJsonDeep(v);
  if (p === undefined || p === null) return [];
  if (typeof p === 'string') return [{ role, content: p }];
  if (Array.isArray(p)) return p.flatMap((x) => asMessages(x, role));
  if (isObject(p) && ('from' in p || 'value' in p)) return shareGptMessages([p], null);
  if (isObject(p) && 'content' in p) return [openaiMessage({ role, ...p })];
  return [{ role, content: str(p) }];
}

/** The conversation before the response(s): system, history pairs, then the instruction / question / prompt. */
function promptOf(v: Obj): ChatMessage[] {
  const t = turns(v);
  if (t) {
    const msgs = shareGptMessages(t, v.system);
    // preference / KTO rows on conversations: the prompt is everything the pair answers
    return msgs;
  }
  const out: ChatMessage[] = [];
  const sys = str(v.system);
  if (sys) out.push({ role: 'system', content: sys });
  const history = parseJsonDeep(v.history);
  if (Array.isArray(history))
    for (const h of history) {
      if (!Array.isArray(h)) continue;
      out.push({ role: 'user', content: str(h[0]) }, { role: 'assistant', content: str(h[1]) });
    }
  if (text(v.instruction) || text(v.question)) {
    const q = [str(v.instruction ?? v.question), str(v.input)].filter((x): x is string => !!x);
    out.push({ role: 'user', content: q.join('\n') });
  } else if ('prompt' in v) out.push(...asMessages(v.prompt, 'user'));
  return out;
}

function toolsOf(v: Obj): string | null {
  const tools = parseJsonDeep(v.tools);
  return Array.isArray(tools) ? toolsText(tools.map((t) => (isObject(t) && !('type' in t) && 'name' in t ? { type: 'function', function: t } : t))) : null;
}

/** The prompt and the two answers of a preference row, in whichever of its shapes. */
function preference(v: Obj): { prompt: ChatMessage[]; chosen: unknown; rejected: unknown } {
  if ('chosen_messages' in v && 'rejected_messages' in v) {
    const given = v.prompt_messages !== undefined ? asMessages(v.prompt_messages, 'user') : promptOf(v);
    return { prompt: given, chosen: v.chosen_messages, rejected: v.rejected_messages };
  }
  if (!('chosen' in v) && !('chosen_response' in v)) {
    // ms-swift: the chosen conversation in `messages`, its last assistant turn the chosen answer
    const msgs = promptOf(v);
    const last = msgs.findLastIndex((m) => m.role === 'assistant');
    return { prompt: last < 0 ? msgs : msgs.slice(0, last), chosen: last < 0 ? null : [msgs[last]], rejected: v.rejected_messages ?? v.rejected_response };
  }
  return { prompt: promptOf(v), chosen: v.chosen ?? v.chosen_response, rejected: v.rejected ?? v.rejected_response };
}

/** A chosen/rejected value: its leading non-assistant messages extend the prompt (TRL's implicit prompt), its last message is the response. */
function answer(prompt: ChatMessage[], v: unknown): { messages: ChatMessage[]; response: ChatMessage | null } {
  const msgs = asMessages(v);
  const response = msgs.filter((m) => m.role === 'assistant').at(-1) ?? null;
  const before = response ? msgs.slice(0, msgs.lastIndexOf(response)) : msgs;
  // a conversational pair may repeat the prompt at its head
  const head = before.length >= prompt.length && prompt.every((m, i) => m.role === before[i].role && m.content === before[i].content) ? before.slice(prompt.length) : before;
  return { messages: [...prompt, ...head], response };
}

export const llamaFactory = defineNormalizer({
  id: 'llama-factory',
  promptRows: true,
  parallel: true,
  label: 'Fine-tuning datasets: alpaca, DPO pairs, KTO rows (LLaMA-Factory / axolotl / TRL)',
  detect: (sample) => scoreSample(sample, recordScore),
  normalize(record) {
    const v = record.value;
    if (!isObject(v) || !recordScore(v)) throw new RecordError('expected an alpaca row (instruction, output), a preference pair (chosen, rejected) or a KTO row (kto_tag / label)');
    const prompt = promptOf(v);
    const common: TrajectoryDraft['common'] = { tools: toolsOf(v), data_source: str(v.data_source), metadata: metadataOf(v, [...OWN, 'data_source', ...(pair(v) || ktoTag(v) !== null ? [] : ['reward', 'score'])]) };
    const id = str(v.id);
    if (pair(v)) {
      const p = preference(v);
      const sides: [string, unknown, number][] = [
        ['chosen', p.chosen, 1],
        ['rejected', p.rejected, 0],
      ];
      const built = sides.map(([side, value, reward]) => ({ side, reward, ...answer(p.prompt, value) }));
      // both sides answer one prompt: one group even when the pair repeats a longer prompt in its messages
      const group = promptUid(built[0].messages);
      return built.map(
        (b): TrajectoryDraft => ({
          trajectory_uid: id ? `${id}:${b.side}` : null,
          prompt_uid: group,
          common: { ...common, metadata: { ...common.metadata, preference: b.side } },
          steps: [{ messages: b.messages, response: b.response, reward: b.reward }],
        }),
      );
    }
    const tag = ktoTag(v);
    let steps: StepDraft[];
    if (turns(v)) steps = chatToSteps(prompt);
    else {
      const out = answer(prompt, v.output ?? v.completion);
      steps = chatToSteps(out.response ? [...out.messages, out.response] : out.messages);
    }
    if (tag !== null) {
      steps[steps.length - 1].reward = tag ? 1 : 0;
      common.metadata = { ...common.metadata, kto_tag: String(tag) };
    } else if (num(v.reward ?? v.score) !== null) steps[steps.length - 1].reward = num(v.reward ?? v.score);
    return [{ trajectory_uid: id, common, steps }];
  },
});
