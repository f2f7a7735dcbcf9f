/** JSON helpers every stage uses to read untrusted records: typed access, lenient numbers and times. */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Obj = Record<string, unknown>;

export function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The value when it is an object (not an array), else null. */
export function asObject(v: unknown): Obj | null {
  return isObject(v) ? v : null;
}

export function str(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

export function num(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

export function int(v: unknown): number | null {
  const n = num(v);
  return n === null ? null : Math.trunc(n);
}

/**
 * JSON text of an object or an array (possibly encoded more than once, as logs that store JSON in a JSON
 * string do) → that value. Anything else comes back as it is: a string stays the string the source wrote,
 * also when it is a JSON string literal (`"yes"` keeps its quotes) or when decoding it gives no structure.
 */
export function parseJsonDeep(v: unknown, maxDepth = 4): unknown {
  let cur = v;
  for (let i = 0; i < maxDepth && typeof cur === 'string'; i++) {
    const t = cur.trim();
    if (!(t.startsWith('{') || t.startsWith('[') || t.startsWith('"'))) break;
    try {
      cur = JSON.parse(t);
    } catch {
      break;
    }
  }
  return typeof cur === 'object' && cur !== null ? cur : v;
}

/** The source's other top-level keys as MAP(VARCHAR, VARCHAR): strings as they are, other values as JSON text. */
export function metadataOf(obj: Obj, exclude: Iterable<string>): Record<string, string> | null {
  const skip = new Set(exclude);
  const out: Record<string, string> = {};
  let n = 0;
  for (const [k, v] of Object.entries(obj)) {
    if (skip.has(k) || v === undefined) continue;
    out[k] = typeof v === 'string' ? v : JSON.stringify(v);
    n++;
  }
  return n ? out : null;
}

/** An ISO-like date-time with no zone (`2026-11-28T14:02:11.514322`, `2026-11-28 14:02:11`): local time of an unknown place. */
const NAIVE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?$/;

export function isNaiveTime(v: unknown): boolean {
  return typeof v === 'string' && NAIVE_TIME.test(v.trim());
}

/** The metadata note for steps whose source wrote timestamps without a zone (DESIGN: never shift silently). */
export const NAIVE_TIME_NOTE = { key: 'time_zone', value: 'none in source: timestamps kept as written, stored as UTC' } as const;

/** `meta` plus the naive-time note when any of `values` is a timestamp without a zone. */
export function noteNaiveTimes(meta: Record<string, string> | null, ...values: unknown[]): Record<string, string> | null {
  if (!values.some(isNaiveTime)) return meta;
  return { ...(meta ?? {}), [NAIVE_TIME_NOTE.key]: NAIVE_TIME_NOTE.value };
}

/**
 * Epoch milliseconds of a timestamp: numbers by magnitude (s / ms / µs / ns), ISO text with its zone.
 * Text without a zone is read as UTC, so it keeps the wall-clock value it was written with instead of
 * being shifted by whatever zone the browser runs in (`Date.parse` reads it as local time); callers
 * add `noteNaiveTimes` to say so.
 */
export function timeMs(v: unknown): number | null {
  if (v === null || v === undefined || v === '') return null;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return null;
    if (v > 1e17) return v / 1e6; // nanoseconds
    if (v > 1e14) return v / 1e3; // microseconds
    if (v < 1e11) return v * 1000; // seconds
    return v;
  }
  if (typeof v === 'string') {
    if (/^\d+(\.\d+)?$/.test(v)) return timeMs(Number(v));
    if (isNaiveTime(v)) {
      const [date, time] = v.trim().replace(',', '.').split(/[T ]/);
      const [hms, frac = ''] = time.split('.');
      const t = Date.parse(`${date}T${hms.length === 5 ? `${hms}:00` : hms}.${(frac + '000').slice(0, 3)}Z`);
      return Number.isNaN(t) ? null : t;
    }
    const t = Date.parse(v);
    return Number.isNaN(t) ? null : t;
  }
  return null;
}

/** Walk a dotted path (`a.b.0.c`) into a value. */
export function at(v: unknown, path: string): unknown {
  let cur = v;
  for (const key of path.split('.')) {
    if (cur === null || cur === undefined) return undefined;
    if (Array.isArray(cur)) cur = cur[Number(key)];
    else if (isObject(cur)) cur = cur[key];
    else return undefined;
  }
  return cur;
}
