/** The gateway's route table: a path relative to the page's base (`gateway/...`) → what to do. */
import { type GatewayApi, gatewayApiAt } from '../../wire';

export type Route =
  | { type: 'init' }
  | { type: 'register'; trajectory_uid: string | null; prompt_uid: string | null }
  | { type: 'complete'; trajectory_uid: string | null; prompt_uid: string | null }
  | { type: 'api'; api: GatewayApi; trajectory_uid: string | null; prompt_uid: string | null; path: string }
  | { type: 'passthrough'; trajectory_uid: string | null; prompt_uid: string | null; path: string }
  | { type: 'unknown'; reason: string };

const SEGMENT = /^[A-Za-z0-9._:~%@+=-]{1,300}$/;

/** `rel` is the path below the base, e.g. `gateway/t1/p1/v1/chat/completions`. */
export function parseRoute(rel: string, method: string): Route {
  const parts = rel.split('/').filter(Boolean);
  if (parts[0] !== 'gateway') return { type: 'unknown', reason: 'not a gateway path' };
  if (parts[1] === 'init_trajectory' && parts.length === 2) {
    return method === 'POST' ? { type: 'init' } : { type: 'unknown', reason: 'init_trajectory takes POST' };
  }
  let i = 1;
  let trajectory_uid: string | null = null;
  let prompt_uid: string | null = null;
  if (parts[1] !== 'v1') {
    if (parts[3] !== 'v1' || !SEGMENT.test(parts[1] ?? '') || !SEGMENT.test(parts[2] ?? '')) {
      return { type: 'unknown', reason: 'expected /gateway/v1/... or /gateway/{trajectory_uid}/{prompt_uid}/v1/...' };
    }
    trajectory_uid = decodeURIComponent(parts[1]);
    prompt_uid = decodeURIComponent(parts[2]);
    i = 3;
  }
  const path = parts.slice(i + 1).join('/');
  if (path === 'register_trajectory' || path === 'complete_trajectory') {
    if (method !== 'POST') return { type: 'unknown', reason: `${path} takes POST` };
    if (!trajectory_uid) return { type: 'unknown', reason: `${path} needs a trajectory: call it under /gateway/{trajectory_uid}/{prompt_uid}/v1/ (see init_trajectory)` };
    return { type: path === 'register_trajectory' ? 'register' : 'complete', trajectory_uid, prompt_uid };
  }
  const api = gatewayApiAt(path);
  if (api) {
    return method === 'POST' ? { type: 'api', api, trajectory_uid, prompt_uid, path } : { type: 'unknown', reason: `${path} takes POST` };
  }
  if (path === 'models' || path.startsWith('models/')) return { type: 'passthrough', trajectory_uid, prompt_uid, path };
  return { type: 'unknown', reason: `no gateway route for v1/${path}; supported: chat/completions, responses, messages, models, register_trajectory, complete_trajectory` };
}
