/** What every provider module of the wire layer returns: a request's context and a response's reading. */
import { isObject, type Obj, str } from '../contract/json';
import type { ChatMessage, StepRecord } from '../contract/step';
import type { SseEvent } from './sse';

/** What a request asked: its context as OpenAI-style messages, the tools offered, the model. */
export interface WireRequest extends Pick<StepRecord, 'model' | 'messages' | 'tools'> {
  stream: boolean;
  /** The tool list as sent, when `tools` is a conversion of it (Anthropic shape). */
  tools_original: string | null;
  /** Responses API: the response this call continues. */
  previous_response_id: string | null;
}

/** A response (a JSON body, or a reassembled stream) read into the step's fields. */
export interface WireResponse
  extends Pick<StepRecord, 'model' | 'finish_reason' | 'prompt_tokens' | 'completion_tokens' | 'prompt_ids' | 'response_ids' | 'error'> {
  id: string | null;
  /** The step's `response`. */
  message: ChatMessage | null;
  /** The step's `rollout_log_probs`. */
  log_probs: number[] | null;
  /**
   * The model reasoned but the source holds none of its text (`encrypted`: a Responses reasoning item with only
   * `encrypted_content`; `redacted`: Anthropic `redacted_thinking`). No placeholder text is stored; callers
   * say so in `metadata.reasoning_hidden`.
   */
  reasoning_hidden?: ReasoningHidden | null;
  /** When the provider says it created the response (chat `created`, Responses `created_at`), epoch ms. */
  created?: number | null;
}

export const ReasoningHidden = { encrypted: 'encrypted', redacted: 'redacted' } as const;
export type ReasoningHidden = (typeof ReasoningHidden)[keyof typeof ReasoningHidden];

/** Reassembles one streamed response from its SSE events. */
export interface StreamAccumulator {
  push(ev: SseEvent): void;
  result(): WireResponse;
}

export function emptyResponse(): WireResponse {
  return {
    id: null, model: null, message: null, finish_reason: null, prompt_tokens: null, completion_tokens: null,
    prompt_ids: null, response_ids: null, log_probs: null, error: null, reasoning_hidden: null,
  };
}

/** The human-readable text of an error value (`{error: {message}}`, `{type:'error', error}`, `{message}`, `{detail}`, text). */
export function errorText(v: unknown): string | null {
  if (typeof v === 'string') return v || null;
  if (Array.isArray(v)) return v.length ? errorText(v[0]) : null;
  if (!isObject(v)) return null;
  if (isObject(v.error)) return str(v.error.message) ?? JSON.stringify(v.error);
  if (typeof v.error === 'string') return v.error;
  if (typeof v.message === 'string') return v.message;
  if (typeof v.detail === 'string') return v.detail;
  return null;
}

/** What a stream event that is not JSON is recorded as (the agent still gets the bytes unchanged). */
export function malformed(data: string): string | null {
  return data.trim() ? `malformed SSE event from the upstream: ${data.slice(0, 120)}` : null;
}

export function parseObject(data: string): Obj | null {
  try {
    const v: unknown = JSON.parse(data);
    return isObject(v) ? v : null;
  } catch {
    return null;
  }
}
