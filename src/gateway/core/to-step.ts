/** A finished captured call → its StepRecord (source 'capture', format 'gateway'). */
import { redactSecrets } from '../../record/redact';
import type { ChatMessage, StepRecord } from '../../contract/step';
import { messageText } from '../../contract/message';
import type { GatewayApi, WireResponse } from '../../wire';
import type { TrajectoryState } from './journal';

export interface CallRecord {
  trajectory_uid: string;
  prompt_uid: string;
  step_index: number;
  api: GatewayApi;
  provider: string;
  upstream: string;
  stream: boolean;
  model: string | null;
  messages: ChatMessage[];
  tools: string | null;
  /** The tool list as the agent sent it, when `tools` is a conversion of it (Anthropic, Responses shapes): metadata.tools_original, as import keeps it. */
  tools_original?: string | null;
  /** The request body as the agent sent it (parsed JSON, or the text when it was not JSON). */
  request: unknown;
  /** Non-stream bodies as parsed JSON or text; streams are represented by the assembled message. */
  responseBody: unknown;
  assembled: WireResponse | null;
  http_status: number | null;
  error: string | null;
  aborted: boolean;
  started_at: number;
  ended_at: number;
  latency_ms: number;
  ttft_ms: number | null;
  state: TrajectoryState | null;
  /** The response's size in bytes when it passed the gateway's recording limit and was recorded cut (tee.ts). */
  cutBytes?: number | null;
}

export function callToStep(c: CallRecord): StepRecord {
  const a = c.assembled;
  const failed = c.error !== null || c.aborted;
  const meta: Record<string, string> = { ...(c.state?.metadata ?? {}), api: c.api, upstream: c.upstream, stream: String(c.stream) };
  if (c.http_status !== null) meta.http_status = String(c.http_status);
  if (a?.id) meta.response_id = a.id;
  // what import keeps of the same call (ingest/normalizers/wire-call.ts), kept here too: one record whichever source
  if (c.tools_original) meta.tools_original = c.tools_original;
  if (a?.reasoning_hidden) meta.reasoning_hidden = a.reasoning_hidden;
  if (c.aborted) meta.aborted = 'true';
  if (c.cutBytes) {
    meta.response_bytes = String(c.cutBytes);
    meta.response_cut = 'true';
  }
  const response = a?.message ? redactSecrets(a.message) : null;
  const raw = redactSecrets({ api: c.api, request: c.request, response: c.stream ? (a ? { assembled: a } : null) : c.responseBody, http_status: c.http_status, error: c.error });
  return {
    step_id: `${c.trajectory_uid}:${c.step_index}`,
    trajectory_uid: c.trajectory_uid,
    prompt_uid: c.prompt_uid,
    step_index: c.step_index,
    is_last: false,
    channel: c.state?.channel ?? 'train',
    policy_version: null,
    agent: c.state?.agent ?? null,
    data_source: c.state?.metadata?.data_source ?? null,
    model: a?.model ?? c.model,
    provider: c.provider,
    messages: redactSecrets(c.messages),
    tools: c.tools,
    response,
    response_text: response ? messageText(response) : null,
    finish_reason: failed ? 'error' : (a?.finish_reason ?? null),
    prompt_tokens: a?.prompt_tokens ?? null,
    completion_tokens: a?.completion_tokens ?? null,
    prompt_ids: a?.prompt_ids ?? null,
    response_ids: a?.response_ids ?? null,
    rollout_log_probs: a?.log_probs ?? null,
    reward: null,
    started_at: c.started_at,
    ended_at: c.ended_at,
    latency_ms: c.latency_ms,
    ttft_ms: c.ttft_ms,
    status: failed ? 'error' : 'ok',
    error: c.aborted ? `cancelled by client${c.error ? `: ${c.error}` : ''}` : c.error,
    metadata: meta,
    raw: JSON.stringify(raw),
    source: 'capture',
    source_format: 'gateway',
    source_line: null,
    source_id: 'capture',
    import_id: null,
  };
}
