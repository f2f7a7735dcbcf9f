/**
 * The gateway proper, as it runs inside the service worker: routes `/gateway/...`, forwards calls to
 * the chosen upstream (or the mock), streams the answer back untouched while a tee reassembles it,
 * and writes each finished call to the journal. No DOM, no page: works for hidden tabs and workers.
 *
 * One concept: one call's path (route → forward → tee → journal) read top to bottom; its parts (routes, tee, journal, to-step, scrub) are already modules.
 */
import { promptUid } from '../../record/prompt-uid';
import type { ChatMessage, StepRecord } from '../../contract/step';
import { isObject, num, type Obj, str } from '../../contract/json';
import { hash64 } from '../../util/hash';
import { type GatewayApi, httpErrorText, wireRequest, wireResponse } from '../../wire';
import { allocateStep, completeTrajectory, getLink, type JournalDb, putLink, putStep, updateTrajectory } from './journal';
import { CallAborts } from './call-aborts';
import { mockFetch } from './mock-upstream';
import { CALL_ID_HEADER } from './protocol';
import { parseRoute } from './routes';
import { scrubSecrets, secretSpellings, secretsOf } from './scrub';
import { capText, cutError, parseOr, RECORD_LIMIT, Tee } from './tee';
import { callToStep, type CallRecord } from './to-step';
import { corsHint, type GatewaySettings, pickUpstream, type UpstreamConfig, upstreamHeaders, upstreamUrl } from './upstream';

export type GatewayEvent =
  | { type: 'call-start'; id: string; trajectory_uid: string; api?: GatewayApi; model?: string | null }
  | { type: 'call-end'; id: string; trajectory_uid: string; status: 'ok' | 'error'; error: string | null; latency_ms?: number }
  | { type: 'journal'; step_ids: string[] }
  /** A call could not be journaled as it was (recorded without its bodies), or not at all: the page's captureStats.lastError. */
  | { type: 'record-error'; message: string };

export interface GatewayDeps {
  db: () => Promise<JournalDb>;
  settings: () => Promise<GatewaySettings>;
  notify: (e: GatewayEvent) => void;
  fetch?: typeof fetch;
  /** Bytes of a response body recorded (default RECORD_LIMIT); the agent always gets the whole body. */
  recordLimit?: number;
}

export interface Handled {
  response: Promise<Response>;
  /** Settles when the call is in the journal (the service worker keeps itself alive until then). */
  done: Promise<void>;
}

const AUTO_PROMPT = 'auto';

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

function gatewayError(status: number, type: string, message: string): Response {
  return json(status, { error: { type, message, source: 'agentworld-gateway' } });
}

function normArgs(s: string): string {
  try {
    return JSON.stringify(JSON.parse(s));
  } catch {
    return s;
  }
}

function messageKey(m: ChatMessage): string {
  // Stryker disable next-line StringLiteral: keys are only compared with keys: any constant for "no tool calls" works
  const calls = m.tool_calls?.map((c) => `${c.function.name}:${normArgs(c.function.arguments)}`).join('|') ?? '';
  return `${m.role}\u0001${(m.content ?? '').trim()}\u0001${calls}\u0001${m.tool_call_id ?? ''}`;
}

/** Rolling history keys: keys[j] identifies messages[0..j]. */
function historyKeys(messages: readonly ChatMessage[]): string[] {
  const keys: string[] = [];
  let k = '';
  for (const m of messages) keys.push((k = hash64(`${k}\u0002${messageKey(m)}`)));
  return keys;
}

const uid = (prefix: string) => `${prefix}-${crypto.randomUUID().replace(/-/g, '').slice(0, 20)}`;

export class Gateway {
  constructor(
    /** The base path the gateway lives under, e.g. `/workbench/` (the service worker's scope). */
    readonly basePath: string,
    private deps: GatewayDeps,
  ) {}

  /** Calls in flight by the client's `x-aw-call-id`, so a client can cancel one (see ABORT_CHANNEL). */
  private aborts = new CallAborts();

  /**
   * Cancel a call: the upstream request is aborted and the step recorded as cancelled. True if the call
   * was in flight; a cancel that came before its call is applied when the call starts (call-aborts.ts).
   */
  abort(callId: string): boolean {
    return this.aborts.abort(callId);
  }

  owns(url: URL): boolean {
    return url.pathname.startsWith(`${this.basePath}gateway/`) || url.pathname === `${this.basePath}gateway`;
  }

  handle(request: Request): Handled {
    let finish: () => void = () => {};
    const done = new Promise<void>((ok) => (finish = ok));
    const track = (p: Promise<void>) =>
      p.then(finish, (e: unknown) => {
        console.error('gateway: journal write failed', e);
        this.deps.notify({ type: 'record-error', message: `the gateway could not record a call (${errorText(e)}): it is not in the journal` });
        finish();
      });
    const response = this.route(request, track).catch((e: unknown) => {
      finish();
      return gatewayError(500, 'gateway_internal_error', `The gateway failed: ${e instanceof Error ? e.message : String(e)}. The call was not forwarded; retry, and report it if it persists.`);
    });
    return { response, done };
  }

  private async route(request: Request, track: (p: Promise<void>) => void): Promise<Response> {
    const url = new URL(request.url);
    const rel = url.pathname.slice(this.basePath.length);
    const route = parseRoute(rel, request.method);
    if (request.method === 'OPTIONS') {
      track(Promise.resolve());
      return new Response(null, { status: 204 });
    }
    if (route.type === 'api') return this.call(request, route.api, route.trajectory_uid, route.prompt_uid, route.path, track);
    track(Promise.resolve());
    switch (route.type) {
      case 'init':
        return this.init(request, url);
      case 'register': {
        const body = await readJson(request);
        const meta = isObject(body.metadata) ? stringMap(body.metadata) : null;
        const s = await updateTrajectory(await this.deps.db(), route.trajectory_uid!, route.prompt_uid ?? AUTO_PROMPT, {
          ...(str(body.channel) ? { channel: str(body.channel)! } : {}),
          ...(meta ? { metadata: meta } : {}),
          ...(str(body.agent) ? { agent: str(body.agent) } : {}),
        });
        return json(200, { ok: true, trajectory_uid: s.trajectory_uid, channel: s.channel });
      }
      case 'complete': {
        const body = await readJson(request);
        const reward = num(body.reward);
        // Stryker disable next-line LogicalOperator: a route with a trajectory always has a prompt id (routes.ts)
        const r = await completeTrajectory(await this.deps.db(), route.trajectory_uid!, route.prompt_uid ?? AUTO_PROMPT, reward);
        if (r.step_id) this.deps.notify({ type: 'journal', step_ids: [r.step_id] });
        return json(200, { ok: true, trajectory_uid: route.trajectory_uid, steps: r.steps, reward });
      }
      case 'passthrough':
        return this.models(request, route.path);
      default:
        return gatewayError(404, 'gateway_route_not_found', `${request.method} ${url.pathname}: ${route.reason}.`);
    }
  }

  private async init(request: Request, url: URL): Promise<Response> {
    const body = await readJson(request);
    const trajectory_uid = str(body.trajectory_uid) ?? uid('t');
    const prompt_uid = str(body.prompt_uid) ?? AUTO_PROMPT;
    await updateTrajectory(await this.deps.db(), trajectory_uid, prompt_uid, {
      prompt_uid,
      channel: str(body.channel) ?? 'train',
      agent: str(body.agent),
      upstream: str(body.upstream),
      metadata: isObject(body.metadata) ? stringMap(body.metadata) : null,
    });
    const base_url = `${url.origin}${this.basePath}gateway/${encodeURIComponent(trajectory_uid)}/${encodeURIComponent(prompt_uid)}/v1`;
    return json(200, { trajectory_uid, prompt_uid, base_url });
  }

  private async models(request: Request, path: string): Promise<Response> {
    const s = await this.deps.settings();
    const u = pickUpstream(s, request.headers.get('x-aw-upstream'), null);
    if (u.kind === 'mock') return json(200, { object: 'list', data: ['mock', 'mock-slow', 'mock-500'].map((id) => ({ id, object: 'model', owned_by: 'agentworld' })) });
    return (this.deps.fetch ?? fetch)(upstreamUrl(u, path), { headers: upstreamHeaders(u, request.headers) });
  }

  private async call(request: Request, api: GatewayApi, scopedTraj: string | null, scopedPrompt: string | null, path: string, track: (p: Promise<void>) => void): Promise<Response> {
    // the client's abort: the request's own signal where the browser signals it, else the client's explicit
    // cancel, registered before the first await so a cancel sent while the call is prepared is not lost
    const client = new AbortController();
    const clientId = request.headers.get(CALL_ID_HEADER);
    if (request.signal.aborted) client.abort();
    request.signal.addEventListener('abort', () => client.abort());
    // Stryker disable next-line ConditionalExpression: a null id is never looked up (abort takes a string)
    if (clientId) this.aborts.register(clientId, client);
    try {
      return await this.prepared(request, api, scopedTraj, scopedPrompt, path, track, client, clientId);
    } catch (e) {
      // Stryker disable next-line ConditionalExpression: releasing a null id releases nothing
      if (clientId) this.aborts.release(clientId, client);
      throw e;
    }
  }

  private async prepared(
    request: Request,
    api: GatewayApi,
    scopedTraj: string | null,
    scopedPrompt: string | null,
    path: string,
    track: (p: Promise<void>) => void,
    client: AbortController,
    clientId: string | null,
  ): Promise<Response> {
    const text = await request.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* forwarded as is; recorded as text */
    }
    const summary = wireRequest(api, body);
    const db = await this.deps.db();
    let messages = summary.messages;
    let trajectory_uid = scopedTraj;
    let prompt_uid = scopedPrompt;
    // Stryker disable next-line ConditionalExpression,LogicalOperator: other APIs' summaries have no previous_response_id
    if (api === 'responses' && summary.previous_response_id) {
      const link = await getLink(db, `r:${summary.previous_response_id}`);
      if (link) {
        // Stryker disable next-line ArrayDeclaration: `r:` links are always written with their context
        messages = [...(link.context ?? []), ...messages];
        trajectory_uid ??= link.trajectory_uid;
        prompt_uid ??= link.prompt_uid;
      }
    }
    const keys = historyKeys(messages);
    // Stryker disable next-line ConditionalExpression: the loop condition tests it again
    if (!trajectory_uid) {
      for (let j = messages.length - 1; j >= 0 && !trajectory_uid; j--) {
        // Stryker disable next-line ConditionalExpression: links are only written under keys that end with an assistant message
        if (messages[j].role !== 'assistant') continue;
        const link = await getLink(db, `h:${keys[j]}`);
        if (link) {
          trajectory_uid = link.trajectory_uid;
          prompt_uid = link.prompt_uid;
        }
      }
    }
    trajectory_uid ??= uid('gw');
    // a blank prompt is a group of its own trajectory, as on import (record/prompt-uid.ts)
    if (!prompt_uid || prompt_uid === AUTO_PROMPT) prompt_uid = promptUid(messages, trajectory_uid);
    const { index, state } = await allocateStep(db, { trajectory_uid, prompt_uid, channel: 'train', agent: null, upstream: null, metadata: null });
    if (state.prompt_uid === AUTO_PROMPT) await updateTrajectory(db, trajectory_uid, prompt_uid, { prompt_uid });
    const settings = await this.deps.settings();
    const secrets = secretsOf(settings, request.headers);
    const upstream = pickUpstream(settings, request.headers.get('x-aw-upstream') ?? state.upstream, summary.model);
    const callId = `${trajectory_uid}:${index}`;
    this.deps.notify({ type: 'call-start', id: callId, trajectory_uid, api, model: summary.model });

    const recordLimit = this.deps.recordLimit ?? RECORD_LIMIT;
    const started_at = Date.now();
    const t0 = performance.now();
    const rec: CallRecord = {
      trajectory_uid, prompt_uid, step_index: index, api, provider: upstream.kind, upstream: upstream.id, stream: summary.stream,
      model: summary.model, messages, tools: summary.tools, tools_original: summary.tools_original, request: body, responseBody: null, assembled: null, http_status: null,
      error: null, aborted: false, started_at, ended_at: started_at, latency_ms: 0, ttft_ms: null, state: { ...state, prompt_uid },
    };
    const finish = async (): Promise<void> => {
      // Stryker disable next-line ConditionalExpression: deleting a null id deletes nothing
      if (clientId) this.aborts.release(clientId, client);
      rec.ended_at = Date.now();
      rec.latency_ms = performance.now() - t0;
      let step: StepRecord;
      try {
        step = scrubSecrets(callToStep(rec), secrets);
        await putStep(db, step);
      } catch (e) {
        // never drop a call in silence: record it without its bodies (what failed is most likely their size), and tell the page
        const why = `the gateway could not record this call whole (${errorText(e)}); the agent got the upstream's answer; the step keeps no request or response`;
        this.deps.notify({ type: 'record-error', message: why });
        step = scrubSecrets(callToStep({ ...rec, messages: [], tools: null, request: null, responseBody: null, assembled: null, error: why }), secrets);
        await putStep(db, step);
        rec.error = why;
      }
      if (rec.assembled?.message && !rec.error && !rec.aborted) await this.link(db, api, scrubSecrets(rec, secrets), keys);
      this.deps.notify({ type: 'call-end', id: callId, trajectory_uid, status: step.status, error: step.error, latency_ms: rec.latency_ms });
      this.deps.notify({ type: 'journal', step_ids: [callId] });
    };

    let upstreamRes: Response;
    try {
      upstreamRes = await this.forward(upstream, api, path, request, text, client.signal);
    } catch (e) {
      const aborted = client.signal.aborted;
      rec.aborted = aborted;
      const timeout = e instanceof DOMException && e.name === 'TimeoutError';
      rec.error = aborted ? null : timeout ? `upstream ${upstream.name} timed out after ${upstream.timeoutMs ?? 600000} ms` : corsHint(upstream, new URL(request.url).origin);
      track(finish());
      if (aborted) return gatewayError(499, 'gateway_cancelled', 'cancelled by client');
      return gatewayError(timeout ? 504 : 502, timeout ? 'gateway_upstream_timeout' : 'gateway_upstream_unreachable', rec.error ?? 'failed');
    }
    rec.http_status = upstreamRes.status;
    const headers = new Headers(upstreamRes.headers);
    headers.delete('content-encoding');
    headers.delete('content-length');
    if (!upstreamRes.ok || !upstreamRes.body) {
      let errBody: string;
      try {
        errBody = await upstreamRes.text();
      } catch (e) {
        rec.aborted = client.signal.aborted;
        const broke = `upstream body broke: ${e instanceof Error ? e.message : String(e)}`;
        if (!rec.aborted) rec.error = broke;
        track(finish());
        return rec.aborted ? gatewayError(499, 'gateway_cancelled', 'cancelled by client') : gatewayError(502, 'gateway_upstream_broken', broke);
      }
      const kept = capText(errBody, recordLimit);
      rec.responseBody = kept.bytes === null ? parseOr(errBody) : kept.text;
      rec.cutBytes = kept.bytes;
      if (!upstreamRes.ok) rec.error = httpErrorText(upstreamRes.status, kept.text) + (kept.bytes === null ? '' : `; ${cutError(kept.bytes, recordLimit)}`);
      else {
        rec.assembled = wireResponse(api, rec.responseBody);
        // Stryker disable next-line ConditionalExpression: an OK answer gets here only without a body, which wireResponse always reports as an error
        if (rec.assembled.error) rec.error = `upstream error: ${rec.assembled.error}`;
      }
      track(finish());
      // a configured key echoed in an error body is not handed to the agent either (the agent never had it)
      // Stryker disable next-line ArrayDeclaration: a made-up element destructures to the header name 'S', no credential header
      const configured = secretsOf(settings, []);
      const spelled = secretSpellings(configured);
      const shown = spelled.some((k) => errBody.includes(k)) ? scrubSecrets(errBody, configured) : errBody;
      return new Response(shown, { status: upstreamRes.status, statusText: upstreamRes.statusText, headers });
    }
    const isSse = upstreamRes.headers.get('content-type')?.includes('text/event-stream') ?? false;
    const tee = new Tee(api, isSse, recordLimit);
    const reader = upstreamRes.body.getReader();
    let settled = false;
    const settle = (p: () => void): Promise<void> => {
      if (settled) return Promise.resolve();
      settled = true;
      p();
      if (tee.cut) rec.cutBytes = tee.received;
      const done = finish();
      track(done);
      return done;
    };
    const out = new ReadableStream<Uint8Array>({
      async pull(ctl) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            // journal the call (and its chain link) before the agent sees the end of the body, so a
            // follow-up call (previous_response_id, growing history) always finds it
            await settle(() => {
              rec.assembled = tee.result();
              rec.responseBody = tee.body();
              if (tee.cut) {
                rec.cutBytes = tee.received;
                rec.error = cutError(tee.received, recordLimit);
                // a cut JSON body is kept as its text; only a stream's message so far is worth keeping
                if (!isSse) rec.assembled = null;
              } else if (rec.assembled.error) rec.error = `upstream stream error: ${rec.assembled.error}`;
            }).catch(() => {});
            ctl.close();
            return;
          }
          if (rec.ttft_ms === null && isSse) rec.ttft_ms = performance.now() - t0;
          tee.push(value);
          ctl.enqueue(value);
        } catch (e) {
          settle(() => {
            rec.assembled = tee.result();
            rec.aborted = client.signal.aborted;
            rec.error = rec.aborted ? null : `upstream stream broke: ${e instanceof Error ? e.message : String(e)}`;
          });
          ctl.error(e);
        }
      },
      cancel(reason) {
        // the client stopped reading (it aborted, or dropped the body): stop the upstream too
        settle(() => {
          rec.assembled = tee.result();
          rec.aborted = true;
        });
        client.abort(reason);
        return reader.cancel(reason);
      },
    });
    client.signal.addEventListener('abort', () => {
      settle(() => {
        rec.assembled = tee.result();
        rec.aborted = true;
      });
      reader.cancel('cancelled by client').catch(() => {});
    });
    return new Response(out, { status: upstreamRes.status, statusText: upstreamRes.statusText, headers });
  }

  private forward(u: UpstreamConfig, api: GatewayApi, path: string, request: Request, text: string, cancel: AbortSignal): Promise<Response> {
    if (u.kind === 'mock') return mockFetch(api, text, cancel);
    if (u.kind === 'anthropic' && api !== 'messages') {
      return Promise.resolve(gatewayError(400, 'gateway_upstream_mismatch', `Upstream "${u.name}" speaks Anthropic messages; call …/v1/messages, or pick an OpenAI-compatible upstream for ${path}.`));
    }
    if (!u.baseUrl) return Promise.resolve(gatewayError(400, 'gateway_upstream_unset', `Upstream "${u.name}" has no base URL; set it in the Gateway panel.`));
    const signal = AbortSignal.any([cancel, AbortSignal.timeout(u.timeoutMs ?? 600000)]);
    return (this.deps.fetch ?? fetch)(upstreamUrl(u, path), { method: 'POST', headers: upstreamHeaders(u, request.headers), body: text, signal });
  }

  private async link(db: JournalDb, api: GatewayApi, rec: CallRecord, keys: string[]): Promise<void> {
    const msg = rec.assembled!.message!;
    if (api === 'responses') {
      if (rec.assembled!.id) await putLink(db, { key: `r:${rec.assembled!.id}`, trajectory_uid: rec.trajectory_uid, prompt_uid: rec.prompt_uid, context: [...rec.messages, msg] });
      return;
    }
    const k = hash64(`${keys.at(-1) ?? ''}\u0002${messageKey(msg)}`);
    await putLink(db, { key: `h:${k}`, trajectory_uid: rec.trajectory_uid, prompt_uid: rec.prompt_uid });
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

async function readJson(request: Request): Promise<Obj> {
  try {
    const v: unknown = await request.json();
    return isObject(v) ? v : {};
  } catch {
    return {};
  }
}

function stringMap(o: Obj): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(o)) out[k] = typeof v === 'string' ? v : JSON.stringify(v);
  return out;
}

