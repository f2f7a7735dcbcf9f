/**
 * The gateway's book of client cancels by call id (`x-aw-call-id`, see ABORT_CHANNEL). The cancel
 * travels on a BroadcastChannel and the call as a fetch event: nothing orders the two, so a cancel can
 * arrive before its call is registered. Such a cancel is remembered (for `ttlMs`, at most `max` of
 * them, oldest forgotten first) and applied when its call registers. Plain module: no worker globals.
 */
export interface CallAbortsOptions {
  /** How long a cancel for a call not (yet) in flight is kept. */
  ttlMs?: number;
  /** How many such cancels are kept at most. */
  max?: number;
  now?: () => number;
}

const reason = () => new DOMException('cancelled by client', 'AbortError');

export class CallAborts {
  private inflight = new Map<string, AbortController>();
  /** Cancels that came before their call, by id, with the time they came (insertion order = age). */
  private early = new Map<string, number>();
  private readonly ttlMs: number;
  private readonly max: number;
  private readonly now: () => number;

  constructor(o: CallAbortsOptions = {}) {
    this.ttlMs = o.ttlMs ?? 30000;
    this.max = o.max ?? 256;
    this.now = o.now ?? Date.now;
  }

  /** A call starts: `ac` is aborted at once if its cancel came first, else when it comes (until `release`). */
  register(callId: string, ac: AbortController): void {
    this.expire();
    this.inflight.set(callId, ac);
    if (this.early.delete(callId)) ac.abort(reason());
  }

  /** The call ended: a later cancel for it is remembered like an early one and expires unused. */
  release(callId: string, ac: AbortController): void {
    if (this.inflight.get(callId) === ac) this.inflight.delete(callId);
  }

  /** Cancel a call: true if it was in flight; otherwise the cancel is remembered for when it registers. */
  abort(callId: string): boolean {
    const ac = this.inflight.get(callId);
    if (ac) {
      ac.abort(reason());
      return true;
    }
    this.expire();
    this.early.delete(callId);
    this.early.set(callId, this.now());
    while (this.early.size > this.max) this.early.delete(this.early.keys().next().value as string);
    return false;
  }

  /** How many early cancels are remembered (for tests and diagnostics). */
  get pending(): number {
    this.expire();
    return this.early.size;
  }

  private expire(): void {
    const cutoff = this.now() - this.ttlMs;
    for (const [id, at] of this.early) {
      if (at > cutoff) break;
      this.early.delete(id);
    }
  }
}
