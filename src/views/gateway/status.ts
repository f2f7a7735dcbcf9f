/** Live gateway status from the service worker's broadcasts: calls in flight, calls per minute, errors. */
import type { GatewayEvent } from '../../gateway/core/capture';
import { CHANNEL } from '../../gateway/core/protocol';

export interface GatewayStatus {
  inFlight: number;
  perMinute: number;
  errors: number;
  lastError: string | null;
}

export function watchGatewayStatus(onChange: (s: GatewayStatus) => void): () => void {
  const open = new Set<string>();
  const ends: number[] = [];
  let errors = 0;
  let lastError: string | null = null;
  const ch = new BroadcastChannel(CHANNEL);
  const emit = () => {
    const cutoff = Date.now() - 60000;
    while (ends.length && ends[0] < cutoff) ends.shift();
    onChange({ inFlight: open.size, perMinute: ends.length, errors, lastError });
  };
  ch.onmessage = (e: MessageEvent) => {
    const m = e.data as GatewayEvent;
    if (m.type === 'call-start') open.add(m.id);
    else if (m.type === 'call-end') {
      open.delete(m.id);
      ends.push(Date.now());
      if (m.status === 'error') {
        errors++;
        lastError = m.error;
      }
    } else return;
    emit();
  };
  const timer = setInterval(emit, 5000);
  emit();
  return () => {
    clearInterval(timer);
    ch.close();
  };
}
