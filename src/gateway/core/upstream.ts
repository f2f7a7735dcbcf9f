/** Upstream settings and how a captured call is forwarded to one. */
import type { Sealed, VaultMeta } from './vault';

export const UpstreamKind = { openai: 'openai', anthropic: 'anthropic', mock: 'mock' } as const;
export type UpstreamKind = (typeof UpstreamKind)[keyof typeof UpstreamKind];

export interface UpstreamConfig {
  id: string;
  name: string;
  kind: UpstreamKind;
  /** OpenAI-compatible: `…/v1`; Anthropic: `https://api.anthropic.com` (with or without `/v1`). Unused for mock. */
  baseUrl: string;
  /** In memory unless `remember`; never written into records. */
  key: string | null;
  remember: boolean;
  /** A remembered key as stored when the user set a passphrase (vault.ts); `key` is then null in storage. */
  sealedKey?: Sealed | null;
  /** Model names routed here (`*` wildcard), when a call does not name its upstream. */
  models: string[];
  /** The server accepts vLLM's `return_tokens_as_token_ids` (the white-box agent then asks for token ids). */
  tokenIds?: boolean;
  timeoutMs?: number;
}

export interface GatewaySettings {
  upstreams: UpstreamConfig[];
  defaultUpstream: string;
  /** Set when remembered keys are stored encrypted with a passphrase. */
  vault?: VaultMeta | null;
}

export const MOCK_UPSTREAM: UpstreamConfig = { id: 'mock', name: 'Built-in mock (offline)', kind: 'mock', baseUrl: '', key: null, remember: false, models: ['mock*'], tokenIds: true };

export function defaultSettings(): GatewaySettings {
  return { upstreams: [{ ...MOCK_UPSTREAM }], defaultUpstream: 'mock' };
}

function wildcard(pattern: string, name: string): boolean {
  const re = new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 'i');
  return re.test(name);
}

/** The named upstream, else the first whose model patterns match, else the default, else the mock. */
export function pickUpstream(s: GatewaySettings, preferred: string | null, model: string | null): UpstreamConfig {
  const all = s.upstreams.length ? s.upstreams : [MOCK_UPSTREAM];
  const byId = preferred ? all.find((u) => u.id === preferred) : undefined;
  if (byId) return byId;
  const byModel = model ? all.find((u) => u.models.some((p) => wildcard(p, model))) : undefined;
  return byModel ?? all.find((u) => u.id === s.defaultUpstream) ?? all[0];
}

/** Upstream URL for `path` (below `v1/`). */
export function upstreamUrl(u: UpstreamConfig, path: string): string {
  let base = u.baseUrl.trim().replace(/\/+$/, '');
  if (u.kind === 'anthropic' && !/\/v1$/.test(base)) base += '/v1';
  return `${base}/${path}`;
}

const DROP = /^(host|connection|content-length|cookie|origin|referer|accept-encoding|x-stainless-.*|x-aw-.*|sec-.*)$/i;
const CREDENTIAL = /^(authorization|x-api-key|api-key)$/i;

/** Headers for the upstream: the agent's own, minus hop-by-hop and SDK telemetry; the configured key replaces the agent's. */
export function upstreamHeaders(u: UpstreamConfig, incoming: Headers): Headers {
  const out = new Headers();
  incoming.forEach((v, k) => {
    if (DROP.test(k)) return;
    if (CREDENTIAL.test(k) && u.key) return;
    out.set(k, v);
  });
  if (u.key) {
    if (u.kind === 'anthropic') out.set('x-api-key', u.key);
    else out.set('authorization', `Bearer ${u.key}`);
  }
  if (u.kind === 'anthropic') {
    out.set('anthropic-dangerous-direct-browser-access', 'true');
    if (!out.has('anthropic-version')) out.set('anthropic-version', '2023-06-01');
  }
  if (!out.has('content-type')) out.set('content-type', 'application/json');
  return out;
}

/** What to tell the user when a browser fetch to the upstream fails before any response (usually CORS). */
export function corsHint(u: UpstreamConfig, origin: string): string {
  return (
    `Could not reach ${u.baseUrl} from ${origin}. If it is running, it probably does not allow this page's origin (CORS). ` +
    `vLLM: start it with --allowed-origins '["${origin}"]'; Ollama: set OLLAMA_ORIGINS=${origin}; llama.cpp server and others: enable CORS for ${origin}.`
  );
}
