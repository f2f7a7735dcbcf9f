/**
 * Client side of call cancellation: a `fetch` that tags each gateway call with an id and, when the
 * caller's signal aborts, tells the gateway service worker to abort the upstream request too (see
 * ABORT_CHANNEL). Works in pages and workers (BroadcastChannel); harmless for other URLs.
 */
import { ABORT_CHANNEL, type AbortMessage, CALL_ID_HEADER } from '../core/protocol';

let channel: BroadcastChannel | null = null;

export function cancelGatewayCall(callId: string): void {
  if (!channel) {
    channel = new BroadcastChannel(ABORT_CHANNEL);
    (channel as { unref?: () => void }).unref?.(); // Node: do not keep the process alive
  }
  channel.postMessage({ type: 'aw-gateway:abort', callId } satisfies AbortMessage);
}

export function abortRelayFetch(f: typeof fetch = fetch): typeof fetch {
  return (input, init) => {
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    if (!signal) return f(input, init);
    const callId = crypto.randomUUID();
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    headers.set(CALL_ID_HEADER, callId);
    const onAbort = () => cancelGatewayCall(callId);
    signal.addEventListener('abort', onAbort, { once: true });
    return f(input, { ...init, headers }).then(
      (r) => r,
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        throw e;
      },
    );
  };
}
