/**
 * A recorded LLM API call (request body + response body, JSON or SSE text) → the pieces of a step.
 * Used by the recording formats (HAR, nock, VCR) that carry raw HTTP bodies; what the bodies say is
 * read by the wire layer (src/wire/), as for gateway capture and log import.
 */
import { isObject, type Obj, parseJsonDeep } from '../../contract/json';
import type { StepDraft } from '../../contract/step';
import { Api, API_PROVIDER, apiOfPath, errorText, type GatewayApi, looksLikeSse, parseSse, streamAccumulator, type WireRequest, type WireResponse, wireRequest, wireResponse } from '../../wire';
import { geminiAccumulator, geminiRequest, geminiResponse, isGeminiRequest } from '../../wire/gemini';
import { emptyResponse } from '../../wire/types';

/** Which API a call used, from its URL path first (wire/apis.ts) and its request body second; null = not an LLM call. */
export function apiOf(url: string | null, body: unknown): Api | null {
  const byPath = apiOfPath(url);
  if (byPath) return byPath;
  if (isGeminiRequest(body)) return Api.gemini;
  if (!isObject(body) || typeof body.model !== 'string') return null;
  if (Array.isArray(body.messages)) return guessChatOrAnthropic(body);
  if ('input' in body) return Api.responses;
  if ('prompt' in body) return Api.completions;
  return null;
}

function guessChatOrAnthropic(body: Obj): Api {
  if (typeof body.system === 'string' || Array.isArray(body.system)) return Api.messages;
  const anthropicBlocks = (body.messages as unknown[]).some(
    (m) => isObject(m) && Array.isArray(m.content) && m.content.some((b) => isObject(b) && (b.type === 'tool_use' || b.type === 'tool_result')),
  );
  return anthropicBlocks ? Api.messages : Api.chat;
}

/** The wire module that reads an API's bodies (legacy completions share the chat module; Gemini has its own, no gateway route). */
const WIRE: Record<Exclude<Api, 'gemini'>, GatewayApi> = { chat: 'chat', completions: 'chat', responses: 'responses', messages: 'messages' };

/** A request body → what it asked, by the API's wire module. */
export function requestOf(api: Api, body: unknown): WireRequest {
  return api === Api.gemini ? geminiRequest(body) : wireRequest(WIRE[api], body);
}

/** The model a Gemini URL names (`…/models/gemini-2.0-flash:generateContent`). */
function urlModel(url: string | null): string | null {
  return /\/models\/([^/:?#]+):/.exec(url ?? '')?.[1] ?? null;
}

/** A response body (parsed JSON, or SSE / JSON text) → the step's reading. */
export function parseResponse(api: Api, body: unknown): WireResponse {
  if (api === Api.gemini) return parseGemini(body);
  if (typeof body === 'string') {
    if (looksLikeSse(body)) {
      const acc = streamAccumulator(WIRE[api]);
      for (const e of parseSse(body)) acc.push(e);
      return acc.result();
    }
    const parsed = parseJsonDeep(body);
    if (typeof parsed === 'string') return { ...emptyResponse(), error: body.trim() ? body.slice(0, 2000) : null };
    body = parsed;
  }
  if (!isObject(body)) return { ...emptyResponse(), error: Array.isArray(body) ? errorText(body) : null };
  if (isObject(body.error) || (typeof body.error === 'string' && !('choices' in body)) || body.type === 'error') return { ...emptyResponse(), error: errorText(body) };
  const wire = body.type === 'message' ? 'messages' : body.object === 'response' ? 'responses' : WIRE[api];
  return wireResponse(wire, body);
}

/** A Gemini response body: JSON, a streamed SSE text, or the JSON array of chunks `streamGenerateContent` returns. */
function parseGemini(body: unknown): WireResponse {
  if (typeof body === 'string' && looksLikeSse(body)) {
    const acc = geminiAccumulator();
    for (const e of parseSse(body)) acc.push(e);
    return acc.result();
  }
  const v = parseJsonDeep(body);
  if (Array.isArray(v)) {
    const acc = geminiAccumulator();
    for (const c of v) acc.chunk(c);
    return acc.result();
  }
  if (isObject(v) && isObject(v.error)) return { ...emptyResponse(), error: errorText(v) };
  if (!isObject(v)) return { ...emptyResponse(), error: typeof body === 'string' && body.trim() ? body.slice(0, 2000) : null };
  return geminiResponse(v);
}

/** Request + response of one call as a step draft (without timing and status, which the recording knows). */
export function wireStep(api: Api, requestBody: unknown, responseBody: unknown, url: string | null = null): StepDraft & { error: string | null } {
  const req = requestOf(api, requestBody);
  const res = parseResponse(api, responseBody);
  return {
    messages: req.messages,
    tools: req.tools,
    model: res.model ?? req.model ?? urlModel(url),
    provider: API_PROVIDER[api],
    response: res.message,
    finish_reason: res.finish_reason ?? (res.error ? 'error' : null),
    prompt_tokens: res.prompt_tokens,
    completion_tokens: res.completion_tokens,
    // token ids and log-probs (vLLM), as gateway capture keeps them
    prompt_ids: res.prompt_ids,
    response_ids: res.response_ids,
    rollout_log_probs: res.log_probs,
    error: res.error,
    // the provider's own creation time (seconds): the call's start when the recording has no time of its own
    started_at: res.created ?? null,
    ...(req.tools_original || res.reasoning_hidden || res.created
      ? {
          metadata: {
            ...(req.tools_original ? { tools_original: req.tools_original } : {}),
            ...(res.reasoning_hidden ? { reasoning_hidden: res.reasoning_hidden } : {}),
            ...(res.created ? { time_source: 'response created' } : {}),
          },
        }
      : {}),
  };
}
