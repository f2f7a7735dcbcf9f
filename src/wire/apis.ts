/**
 * The provider APIs a call is made with, and the one mapping from a URL to its API (docs/decisions/084). Gateway
 * routes, the mock upstream, the white-box agent, the Gateway tab and recorded-call import (HAR, nock, VCR, batch
 * files) all name an API and its path from here; the step's `metadata.api` is its value, whichever source recorded it.
 */

/** Every API, named by its path below `v1/` (Gemini's path names the model and the method instead). */
export const Api = { chat: 'chat', completions: 'completions', responses: 'responses', messages: 'messages', gemini: 'gemini' } as const;
export type Api = (typeof Api)[keyof typeof Api];

/** The APIs the gateway serves (a route each), each read by one module of the wire layer (wire/index.ts). */
export const GATEWAY_APIS = [Api.chat, Api.responses, Api.messages] as const;
export type GatewayApi = (typeof GATEWAY_APIS)[number];

/** Each API's path below `v1/`; where one path ends another (`chat/completions`, `completions`), the longer comes first. */
export const API_PATHS: Readonly<Record<Exclude<Api, 'gemini'>, string>> = {
  chat: 'chat/completions',
  completions: 'completions',
  responses: 'responses',
  messages: 'messages',
};

/** Who serves an API: the step's `provider` when nothing names another. */
export const API_PROVIDER: Readonly<Record<Api, string>> = {
  chat: 'openai',
  completions: 'openai',
  responses: 'openai',
  messages: 'anthropic',
  gemini: 'google',
};

/** Gemini (generativelanguage, Vertex AI): `…/models/{model}:generateContent` or `:streamGenerateContent`. */
const GEMINI_METHOD = /:(stream)?generateContent$/i;

/**
 * The API a URL or path names by its end (`https://api.openai.com/v1/chat/completions?x=1`, `v1/messages`,
 * `…/models/gemini-2.0-flash:generateContent`); null when it names none.
 */
export function apiOfPath(url: string | null | undefined): Api | null {
  const path = (url ?? '').split(/[?#]/)[0].replace(/\/+$/, '');
  for (const [api, p] of Object.entries(API_PATHS) as [Api, string][]) if (path === p || path.endsWith(`/${p}`)) return api;
  return GEMINI_METHOD.test(path) ? Api.gemini : null;
}

/** The gateway API served at exactly `path` below `v1/`; null for any other path. */
export function gatewayApiAt(path: string): GatewayApi | null {
  return GATEWAY_APIS.find((a) => API_PATHS[a] === path) ?? null;
}
