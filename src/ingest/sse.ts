/** Server-sent events as recorded in logs: parsing raw SSE text into events, and sniffing it. */

export interface SseEvent {
  event: string | null;
  data: string;
}

const SSE_START = /^\uFEFF?(?:[ \t]*(?::[^\n]*|id:[^\n]*|retry:[^\n]*)?\r?\n)*(?:event|data):/;

/** True when the text starts like an SSE stream (`event:` / `data:` lines, comments allowed before). */
export function looksLikeSse(text: string): boolean {
  return SSE_START.test(text.slice(0, 2048));
}

function completeJson(s: string): boolean {
  const t = s.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return false;
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
}

/**
 * Events of an SSE text, by the WHATWG rules (blank line dispatches, `:` comments, one leading
 * space stripped, multi-line `data` joined by `\n`). Recorded logs often drop the blank lines, so a
 * new `event:` line, or a `data:` line after a data buffer that is already complete JSON, also
 * dispatches. Events with no data are skipped.
 */
export function parseSseText(text: string): SseEvent[] {
  const out: SseEvent[] = [];
  let event: string | null = null;
  let data: string[] = [];
  const dispatch = () => {
    if (data.length) out.push({ event, data: data.join('\n') });
    event = null;
    data = [];
  };
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      dispatch();
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') {
      if (data.length) dispatch();
      event = value;
    } else if (field === 'data') {
      if (data.length && completeJson(data.join('\n'))) {
        const keep: string | null = event;
        dispatch();
        event = keep;
      }
      data.push(value);
    }
  }
  dispatch();
  return out;
}

/** The data of an event as JSON when it parses, else the text itself (e.g. `[DONE]`). */
export function sseData(e: SseEvent): unknown {
  const t = e.data.trim();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      return JSON.parse(t);
    } catch {
      return e.data;
    }
  }
  return t;
}

/**
 * The event payloads one record holds: raw SSE text (one record for a whole stream, or one
 * `data: …` line), a `{event, data}` wrapper whose data may be JSON text, or the payload itself.
 */
export function eventPayloads(value: unknown): unknown[] {
  if (typeof value === 'string') {
    if (looksLikeSse(value)) return parseSseText(value).map(sseData);
    return [value.trim()];
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const v = value as Record<string, unknown>;
    if ('data' in v && ('event' in v || Object.keys(v).length === 1) && !('type' in v) && !('object' in v)) {
      const d = v.data;
      return [typeof d === 'string' ? sseData({ event: null, data: d }) : d];
    }
  }
  return [value];
}
