/**
 * The Gateway tab's call list: captured calls as the pool holds them (newest first), with the calls still
 * in flight — announced by the service worker before the pool has them — on top. Merged by step id (the
 * gateway's call id is the step id it records).
 */
import type { GatewayEvent } from '../../gateway/core/capture';
import { CHANNEL } from '../../gateway/core/protocol';
import { API_PATHS } from '../../wire';
import type { PoolClient } from '../../pool/client';
import { CALLS_LIMIT, CAPTURED_CALLS_SQL } from './queries';

export interface CallRow {
  step_id: string;
  trajectory_uid: string;
  started: number | null;
  /** e.g. `POST /v1/chat/completions` */
  method: string;
  model: string | null;
  /** `in flight`, the HTTP status, or ok / error */
  status: string;
  error: boolean;
  latency_ms: number | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
}

const PATHS: Readonly<Record<string, string>> = API_PATHS;
/** `POST /v1/chat/completions` for a step's `metadata.api`; a value that is no API's is shown as it is. */
export const methodOf = (api: string | null | undefined) => `POST /v1/${(api && Object.hasOwn(PATHS, api) ? PATHS[api] : api) || '…'}`;


export async function capturedCalls(pool: PoolClient): Promise<CallRow[]> {
  const rows = await pool.rows(CAPTURED_CALLS_SQL);
  const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return rows.map((r) => ({
    step_id: String(r.step_id), trajectory_uid: String(r.trajectory_uid), started: n(r.started), method: methodOf(r.api as string | null),
    model: (r.model as string | null) ?? null, status: r.http_status ? String(r.http_status) : String(r.status ?? '—'), error: r.status === 'error',
    latency_ms: n(r.latency_ms), prompt_tokens: n(r.prompt_tokens), completion_tokens: n(r.completion_tokens),
  }));
}

/** Calls the service worker announced and the pool does not have yet. */
export class LiveCalls {
  private open = new Map<string, CallRow>();
  private ch: BroadcastChannel | null = null;

  constructor(private onChange: () => void) {}

  start(): void {
    this.ch = new BroadcastChannel(CHANNEL);
    this.ch.onmessage = (e: MessageEvent) => this.apply(e.data as GatewayEvent);
  }

  stop(): void {
    this.ch?.close();
    this.ch = null;
  }

  apply(m: GatewayEvent): void {
    if (m.type === 'call-start') {
      this.open.set(m.id, {
        step_id: m.id, trajectory_uid: m.trajectory_uid, started: Date.now(), method: methodOf(m.api), model: m.model ?? null, status: 'in flight',
        error: false, latency_ms: null, prompt_tokens: null, completion_tokens: null,
      });
    } else if (m.type === 'call-end') {
      const row = this.open.get(m.id);
      if (!row) return;
      this.open.set(m.id, { ...row, status: m.status === 'error' ? 'error' : 'saving…', error: m.status === 'error', latency_ms: m.latency_ms ?? null });
    } else return;
    this.onChange();
  }

  /** The announced calls not yet in `pooled` (those are dropped: the pool's row is the record), newest first. */
  merge(pooled: CallRow[]): CallRow[] {
    const have = new Set(pooled.map((r) => r.step_id));
    for (const id of [...this.open.keys()]) if (have.has(id)) this.open.delete(id);
    return [...[...this.open.values()].reverse(), ...pooled].slice(0, CALLS_LIMIT);
  }
}
