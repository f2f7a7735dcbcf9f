/** Messages between the page and the gateway service worker. */
import type { GatewaySettings } from './upstream';

/** BroadcastChannel on which the service worker announces calls and journal writes (GatewayEvent). */
export const CHANNEL = 'aw-gateway';
export const SETTINGS_REQUEST = 'aw-gateway:need-settings';

export type PageToWorker = { type: 'aw-gateway:settings'; settings: GatewaySettings } | { type: 'aw-gateway:claim' };

/**
 * BroadcastChannel on which a client cancels a call it made with an `x-aw-call-id` header. Chromium
 * does not signal a client's abort to the service worker (`FetchEvent.request.signal` never fires),
 * so before the upstream answers, this is the only way an abort can reach the upstream request.
 */
export const ABORT_CHANNEL = 'aw-gateway-abort';
export const CALL_ID_HEADER = 'x-aw-call-id';
export type AbortMessage = { type: 'aw-gateway:abort'; callId: string };
