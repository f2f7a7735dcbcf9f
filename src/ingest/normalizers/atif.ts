import { withProviderFill } from '../chat-steps';
import { defineNormalizer, RecordError } from '../normalizer';
import { redactSecrets } from '../../record/redact';
import type { ChatMessage, StepDraft, ToolCall } from '../../contract/step';
import { int, isObject, noteNaiveTimes, num, type Obj, str, timeMs } from '../../contract/json';
import { contentToText, normalizeArguments, splitInlineThink } from '../../contract/message';
import { safeMetaValue } from './loose-chat';

function isAtif(v: unknown): v is Obj & { steps: unknown[] } {
  return isObject(v) && typeof v.schema_version === 'string' && v.schema_version.startsWith('ATIF') && Array.isArray(v.steps);
}

function numbers(v: unknown): number[] | null {
  if (!Array.isArray(v) || !v.length) return null;
  const out: number[] = [];
  for (const x of v) {
    const n = num(isObject(x) ? x.logprob : x);
    if (n === null) return null;
    out.push(n);
  }
  return out;
}

function atifToolCalls(v: unknown): ToolCall[] | null {
  if (!Array.isArray(v)) return null;
  const calls: ToolCall[] = [];
  for (const c of v) {
    if (!isObject(c)) continue;
    const name = str(c.function_name ?? (isObject(c.function) ? c.function.name : c.name));
    if (name === null) continue;
    calls.push({ id: str(c.tool_call_id ?? c.id), type: 'function', function: { name, arguments: normalizeArguments(c.arguments ?? (isObject(c.function) ? c.function.arguments : undefined)) } });
  }
  return calls.length ? calls : null;
}

function text(v: unknown): string | null {
  return contentToText(v).content;
}

/**
 * Observation results → messages: tool results answer their call; a result that names no call answers the
 * step's only call not answered otherwise (it is that call's output); other results without a call are
 * environment feedback (user turns).
 */
function observationMessages(obs: unknown, calls: readonly ToolCall[] = []): ChatMessage[] {
  if (!isObject(obs) || !Array.isArray(obs.results)) return [];
  const results = obs.results.filter(isObject);
  const named = new Set(results.map((r) => str(r.source_call_id)));
  const open = calls.filter((c) => !named.has(c.id));
  let only = open.length === 1 ? open[0].id : null;
  return results.map((r) => {
    const callId = str(r.source_call_id) ?? only;
    if (!str(r.source_call_id)) only = null;
    return callId ? { role: 'tool', content: text(r.content), tool_call_id: callId } : { role: 'user', content: text(r.content) };
  });
}

function rewardOf(v: Obj): number | null {
  const fm = isObject(v.final_metrics) ? v.final_metrics : {};
  const fx = isObject(fm.extra) ? fm.extra : {};
  const vx = isObject(v.extra) ? v.extra : {};
  return num(v.reward ?? fm.reward ?? fx.reward ?? vx.reward);
}

/** ATIF (Agent Trajectory Interchange Format): every agent step is one LLM call whose context is everything before it. */
export const atif = withProviderFill(
  defineNormalizer({
    id: 'atif',
    parallel: true,
    label: 'ATIF agent trajectory',
    detect(sample) {
      const hits = sample.filter(isAtif).length;
      return hits ? 0.95 + 0.04 * (hits / sample.length) : 0;
    },
    normalize(record) {
      const v = record.value;
      if (!isAtif(v)) throw new RecordError('not an ATIF trajectory: expected schema_version "ATIF-v1.x" and a steps array');
      const agent = isObject(v.agent) ? v.agent : {};
      const context: ChatMessage[] = [];
      const steps: StepDraft[] = [];
      for (const s of v.steps) {
        if (!isObject(s)) continue;
        const source = str(s.source) ?? 'agent';
        if (source !== 'agent') {
          context.push({ role: source === 'system' ? 'system' : 'user', content: text(s.message) });
          context.push(...observationMessages(s.observation));
          continue;
        }
        let response: ChatMessage = { role: 'assistant', content: text(s.message) };
        const reasoning = str(s.reasoning_content);
        if (reasoning) response.reasoning = reasoning;
        const calls = atifToolCalls(s.tool_calls);
        if (calls) response.tool_calls = calls;
        response = splitInlineThink(response);
        const m = isObject(s.metrics) ? s.metrics : {};
        const metadata: Record<string, string> = { ...noteNaiveTimes(null, s.timestamp) };
        for (const [k, val] of [['atif_step_id', s.step_id], ['cached_tokens', m.cached_tokens], ['cost_usd', m.cost_usd], ['step_extra', s.extra]] as const) {
          const t = safeMetaValue(val);
          if (t !== null) metadata[k] = t;
        }
        steps.push({
          messages: [...context],
          response,
          model: str(s.model_name),
          finish_reason: calls ? 'tool_calls' : 'stop',
          prompt_tokens: int(m.prompt_tokens),
          completion_tokens: int(m.completion_tokens),
          prompt_ids: numbers(m.prompt_token_ids),
          response_ids: numbers(m.completion_token_ids),
          rollout_log_probs: numbers(m.logprobs),
          started_at: timeMs(s.timestamp),
          metadata,
          raw: JSON.stringify(redactSecrets({ session_id: v.session_id, step: s })),
        });
        context.push(response, ...observationMessages(s.observation, calls ?? []));
      }
      if (!steps.length) throw new RecordError('ATIF trajectory has no agent steps, so no LLM call to record');
      steps[steps.length - 1].reward = rewardOf(v);
      const common: Record<string, string> = {};
      for (const [k, val] of [['schema_version', v.schema_version], ['agent_version', agent.version], ['notes', v.notes], ['final_metrics', v.final_metrics], ['agent_extra', agent.extra]] as const) {
        const t = safeMetaValue(val);
        if (t !== null) common[k] = t;
      }
      for (const s of steps) s.metadata = { ...common, ...s.metadata };
      return [
        {
          trajectory_uid: str(v.session_id),
          common: { agent: str(agent.name), model: str(agent.model_name) },
          steps,
        },
      ];
    },
  }),
);
