import { isObject, num, type Obj, parseJsonDeep, str, timeMs } from '../../contract/json';

/** Fields that request/response loggers name in many ways: timing, latency, error text. */

export const TIMING_KEYS = [
  'latency_ms', 'duration_ms', 'elapsed_ms', 'response_time_ms', 'latency', 'latency_s', 'duration', 'response_time',
  'started_at', 'start_time', 'ended_at', 'end_time', 'completed_at', 'timestamp', 'request_time',
];

export interface Timing {
  started_at: number | null;
  ended_at: number | null;
  latency_ms: number | null;
}

/** The timestamp values `timingOf` reads, for `noteNaiveTimes`. */
export function timeSources(outer: Obj): unknown[] {
  return [outer.started_at, outer.start_time, outer.timestamp, outer.request_time, outer.ended_at, outer.end_time, outer.completed_at];
}

export function timingOf(outer: Obj, fallbackStart?: unknown): Timing {
  const started = timeMs(outer.started_at ?? outer.start_time ?? outer.timestamp ?? outer.request_time ?? fallbackStart);
  const ended = timeMs(outer.ended_at ?? outer.end_time ?? outer.completed_at);
  let latency = num(outer.latency_ms ?? outer.duration_ms ?? outer.elapsed_ms ?? outer.response_time_ms ?? outer.latency);
  if (latency === null) {
    const s = num(outer.latency_s ?? outer.duration ?? outer.response_time);
    if (s !== null) latency = s * 1000;
  }
  if (latency === null && started !== null && ended !== null && ended >= started) latency = ended - started;
  return { started_at: started, ended_at: ended, latency_ms: latency };
}

/** An API error object (OpenAI `{error:{message,code}}`, Anthropic `{type:'error', error:{type,message}}`) as one line of text. */
export function errorText(e: unknown): string {
  const p = parseJsonDeep(e);
  if (isObject(p)) {
    const inner = isObject(p.error) ? p.error : p;
    const msg = str(inner.message) ?? JSON.stringify(inner);
    const kind = str(inner.code) ?? str(inner.type);
    return kind && kind !== 'error' && !msg.startsWith(kind) ? `${kind}: ${msg}` : msg;
  }
  return str(p) ?? 'unknown error';
}
