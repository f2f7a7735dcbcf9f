/** Messages between the page and the gateway service worker. */
import type { GatewaySettings } from './upstream';

/** BroadcastChannel on which the service worker announces calls and journal writes (GatewayEvent). */
export const CHANNEL = 'aw-gateway';
export const SETTINGS_REQUEST = 'aw-gateway:need-settings';

export type PageToWorker = { type: 'aw-gateway:settings'; settings: GatewaySettings } | { type: 'aw-gateway:claim' };
