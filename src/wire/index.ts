/**
 * The wire layer: one module per provider API, each the only place its formats are read. Callers pick
 * the module by `GatewayApi` (wire/apis.ts); gateway capture, recorded-exchange import and log import all go through here.
 */
import { isObject } from '../contract/json';
import { anthropicAccumulator, anthropicRequest, anthropicResponse } from './anthropic';
import { chatAccumulator, chatRequest, chatResponse } from './openai-chat';
import { responsesAccumulator, responsesRequest, responsesResponse } from './openai-responses';
import type { GatewayApi } from './apis';
import { emptyResponse, errorText, type StreamAccumulator, type WireRequest, type WireResponse } from './types';

export { Api, API_PATHS, API_PROVIDER, apiOfPath, GATEWAY_APIS, type GatewayApi, gatewayApiAt } from './apis';
export { errorText, type StreamAccumulator, type WireRequest, type WireResponse } from './types';
export { looksLikeSse, parseSse, SseParser, type SseEvent } from './sse';

export function wireRequest(api: GatewayApi, body: unknown): WireRequest {
  return api === 'chat' ? chatRequest(body) : api === 'messages' ? anthropicRequest(body) : responsesRequest(body);
}

/** A JSON response body → the step's reading (a body that is not a JSON object is an error). */
export function wireResponse(api: GatewayApi, body: unknown): WireResponse {
  if (!isObject(body)) return { ...emptyResponse(), error: 'upstream answered with a body that is not a JSON object' };
  return api === 'chat' ? chatResponse(body) : api === 'messages' ? anthropicResponse(body) : responsesResponse(body);
}

export function streamAccumulator(api: GatewayApi): StreamAccumulator {
  return api === 'chat' ? chatAccumulator() : api === 'messages' ? anthropicAccumulator() : responsesAccumulator();
}

/** An upstream's HTTP error body as one line: OpenAI `{error:{message}}`, Anthropic `{type:'error', error:{message}}`, `{message}`, `{detail}`, or the text. */
export function httpErrorText(status: number, body: string): string {
  let msg: string | null = null;
  try {
    msg = errorText(JSON.parse(body));
  } catch {
    /* not JSON: the text itself */
  }
  return `upstream HTTP ${status}: ${msg ?? body.slice(0, 500)}`;
}
