import { withProviderFill } from '../chat-steps';
import { toolsText } from '../../wire/tools';
import { defineNormalizer, RecordError, type SourceRecord } from '../normalizer';
import { redactSecrets } from '../../record/redact';
import type { ChatMessage, StepDraft, TrajectoryDraft } from '../../contract/step';
import { int, isObject, noteNaiveTimes, num, type Obj, str, timeMs } from '../../contract/json';
import { openaiMessage, splitInlineThink } from '../../contract/message';
import { safeMetaValue } from './loose-chat';

const SOURCES = new Set(['agent', 'user', 'environment']);

function isEvent(v: unknown): v is Obj {
  return isObject(v) && SOURCES.has(v.source as string) && ('action' in v || 'observation' in v) && 'id' in v;
}

function isEvalOutput(v: unknown): v is Obj & { history: unknown[] } {
  return isObject(v) && Array.isArray(v.history) && v.history.some(isEvent);
}

interface Located {
  ev: Obj;
  line: number;
}

function modelResponse(ev: Obj): Obj | null {
  const meta = isObject(ev.tool_call_metadata) ? ev.tool_call_metadata : null;
  return meta && isObject(meta.model_response) ? meta.model_response : null;
}

function eventText(ev: Obj): string | null {
  const args = isObject(ev.args) ? ev.args : {};
  return str(args.content ?? ev.content ?? ev.message);
}

/** The tool call an action made, rebuilt from the action when the model response was not kept. */
function actionCall(ev: Obj): ChatMessage['tool_calls'] {
  const meta = isObject(ev.tool_call_metadata) ? ev.tool_call_metadata : {};
  const name = str(meta.function_name);
  if (!name) return null;
  const args = isObject(ev.args) ? { ...ev.args } : {};
  delete args.security_risk;
  return [{ id: str(meta.tool_call_id), type: 'function', function: { name, arguments: JSON.stringify(args) } }];
}

const SKIPPED_OBSERVATIONS = new Set(['agent_state_changed', 'null', 'recall', 'change_agent_state', 'user_rejected']);

/**
 * OpenHands events → steps. An LLM call is a `tool_call_metadata.model_response.id`; the actions that
 * share one response are one step. Context is rebuilt from the system prompt, user messages, earlier
 * responses and the observations that answered their tool calls.
 */
function eventSteps(events: readonly Located[]): { steps: StepDraft[]; tools: string | null } {
  const context: ChatMessage[] = [];
  const steps: StepDraft[] = [];
  const byResponse = new Map<string | null, StepDraft>();
  let tools: string | null = null;
  for (const { ev, line } of events) {
    const source = str(ev.source);
    if (typeof ev.action === 'string') {
      const action = ev.action;
      if (action === 'system') {
        const args = isObject(ev.args) ? ev.args : {};
        tools = toolsText(args.tools) ?? tools;
        context.push({ role: 'system', content: eventText(ev) });
        continue;
      }
      if (source === 'user') {
        if (action === 'message') context.push({ role: 'user', content: eventText(ev) });
        continue;
      }
      if (source !== 'agent' || action === 'recall' || action === 'change_agent_state') continue;
      const mr = modelResponse(ev);
      const rid = mr ? str(mr.id) : null;
      const existing = rid ? byResponse.get(rid) : undefined;
      if (existing) {
        if (!Array.isArray(mr!.choices)) existing.response!.tool_calls = [...(existing.response!.tool_calls ?? []), ...(actionCall(ev) ?? [])];
        continue;
      }
      const choice = mr && Array.isArray(mr.choices) && isObject(mr.choices[0]) ? mr.choices[0] : null;
      let response: ChatMessage;
      if (choice && isObject(choice.message)) response = { ...openaiMessage(choice.message), role: 'assistant' };
      else {
        response = { role: 'assistant', content: action === 'message' || action === 'finish' ? eventText(ev) : (str(ev.thought ?? (isObject(ev.args) ? ev.args.thought : null)) || null) };
        const calls = actionCall(ev);
        if (calls) response.tool_calls = calls;
        response = splitInlineThink(response);
      }
      const usage = mr && isObject(mr.usage) ? mr.usage : {};
      const step: StepDraft = {
        messages: [...context],
        response,
        model: mr ? str(mr.model) : null,
        finish_reason: choice ? str(choice.finish_reason) : response.tool_calls?.length ? 'tool_calls' : 'stop',
        prompt_tokens: int(usage.prompt_tokens),
        completion_tokens: int(usage.completion_tokens),
        started_at: timeMs(ev.timestamp),
        source_line: line,
        metadata: { ...noteNaiveTimes(null, ev.timestamp), event_id: String(ev.id), ...(rid ? { model_response_id: rid } : {}) },
        raw: JSON.stringify(redactSecrets(ev)),
      };
      steps.push(step);
      context.push(response);
      byResponse.set(rid, step);
      continue;
    }
    const obs = str(ev.observation);
    if (!obs || SKIPPED_OBSERVATIONS.has(obs)) continue;
    const meta = isObject(ev.tool_call_metadata) ? ev.tool_call_metadata : null;
    if (meta?.tool_call_id) context.push({ role: 'tool', content: str(ev.content) ?? eventText(ev), tool_call_id: str(meta.tool_call_id), name: str(meta.function_name) });
    else if (obs === 'error' || obs === 'user_message') context.push({ role: 'user', content: str(ev.content) ?? eventText(ev) });
  }
  return { steps, tools };
}

function rewardOf(v: Obj): number | null {
  const t = isObject(v.test_result) ? v.test_result : {};
  const report = isObject(t.report) ? t.report : isObject(v.report) ? v.report : {};
  return num(t.reward ?? report.resolved ?? t.resolved ?? v.reward ?? v.resolved);
}

function draftOf(events: Located[], wrapper: Obj | null): TrajectoryDraft | null {
  const { steps, tools } = eventSteps(events);
  if (!steps.length) return null;
  const metadata: Record<string, string> = {};
  if (wrapper) {
    steps[steps.length - 1].reward = rewardOf(wrapper);
    for (const [k, val] of [['instance_id', wrapper.instance_id], ['error', wrapper.error], ['metrics', wrapper.metrics], ['test_result', wrapper.test_result]] as const) {
      const s = safeMetaValue(val);
      if (s !== null) metadata[k] = s;
    }
  }
  for (const s of steps) s.metadata = { ...metadata, ...s.metadata };
  const meta = wrapper && isObject(wrapper.metadata) ? wrapper.metadata : {};
  const llm = isObject(meta.llm_config) ? meta.llm_config : {};
  return {
    prompt_uid: wrapper ? str(wrapper.instance_id) : null,
    common: { agent: str(meta.agent_class) ?? 'openhands', tools, model: str(llm.model), data_source: str(meta.dataset) },
    steps,
  };
}

interface OpenHandsState {
  events: Located[];
}

/** OpenHands event streams (JSON array / JSONL of events) and evaluation outputs (`{instance_id, history, test_result}`). */
export const openhands = withProviderFill(
  defineNormalizer<OpenHandsState>({
    id: 'openhands',
    label: 'OpenHands event stream',
    detect(sample) {
      const hits = sample.filter((v) => isEvent(v) || isEvalOutput(v)).length;
      return hits ? 0.8 + 0.15 * (hits / sample.length) : 0;
    },
    createState: () => ({ events: [] }),
    normalize(record: SourceRecord, _ctx, state) {
      const v = record.value;
      if (isEvalOutput(v)) {
        const d = draftOf(v.history.filter(isObject).map((ev) => ({ ev, line: record.line })), v);
        return d ? [d] : [];
      }
      if (Array.isArray(v) && v.some(isEvent)) {
        const d = draftOf(v.filter(isObject).map((ev) => ({ ev, line: record.line })), null);
        return d ? [d] : [];
      }
      if (isEvent(v)) {
        state.events.push({ ev: v, line: record.line });
        return [];
      }
      throw new RecordError('not an OpenHands event ({id, source, action | observation}) nor an evaluation output with history');
    },
    flush(_ctx, state) {
      const events = state.events;
      state.events = [];
      const d = draftOf(events, null);
      return d ? [d] : [];
    },
  }),
);
