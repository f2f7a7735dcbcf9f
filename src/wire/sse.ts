/**
 * The one server-sent-events parser: live streams (the gateway's tee, fed network text as it
 * arrives), recorded bodies (HAR, VCR, logs) and `.sse` files (the reader, fed line by line) all use it.
 *
 * WHATWG rules (blank line dispatches, `:` comments, one leading space stripped, multi-line `data`
 * joined by `\n`, `id`/`retry` ignored), plus what recorded logs need, harmless on a live stream:
 * a new `event:` line after data, or a `data:` line after a data buffer that already holds complete
 * JSON, dispatches too (logs that dropped the blank lines); a bare JSON line between events (SSE
 * saved without prefixes) is an event of its own. Events with no data are skipped.
 */
import { isObject } from '../contract/json';

export interface SseEvent {
  event: string | null;
  data: string;
  /** 1-based line the event started on, when the caller feeds lines with their numbers (`line()`). */
  line?: number;
}

function completeJson(s: string): boolean {
  const t = s.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return false;
  try {
    JSON.parse(t);
  } catch {
    return false;
  }
  return true;
}

export class SseParser {
  private buf = '';
  private event: string | null = null;
  private data: string[] = [];
  private start = 0;
  private numbered = false;

  /** Feed text as it arrives (any chunking, `\n`, `\r\n` or `\r` line ends); get the events completed by it. */
  push(text: string): SseEvent[] {
    const out: SseEvent[] = [];
    let s = this.buf + text;
    // a trailing `\r` may be the first half of `\r\n`: keep it until the next chunk tells
    let hold = '';
    if (s.endsWith('\r')) {
      hold = '\r';
      s = s.slice(0, -1);
    }
    let from = 0;
    const re = /\r\n|\r|\n/g;
    for (let m = re.exec(s); m; m = re.exec(s)) {
      // events of push() carry no line (only `line()` callers number their lines)
      this.take(s.slice(from, m.index), 0, out);
      from = m.index + m[0].length;
    }
    this.buf = s.slice(from) + hold;
    return out;
  }

  /** The end of the stream: the last line and the last event, also when no blank line closed them. */
  end(): SseEvent[] {
    const out: SseEvent[] = [];
    // Stryker disable next-line Regex: the buffer never holds a line end but a held trailing \r
    const rest = this.buf.replace(/\r$/, '');
    this.buf = '';
    this.take(rest, 0, out); // an empty rest dispatches: the last event, also when no blank line closed it
    this.dispatch(out);
    return out;
  }

  /** Feed one line (without its line end), e.g. from a reader that splits lines itself. */
  line(text: string, lineNo: number): SseEvent[] {
    const out: SseEvent[] = [];
    this.numbered = true;
    this.take(text, lineNo, out);
    return out;
  }

  private dispatch(out: SseEvent[]): void {
    if (this.data.length) out.push(this.ev(this.event, this.data.join('\n'), this.start));
    this.event = null;
    this.data = [];
  }

  private ev(event: string | null, data: string, line: number): SseEvent {
    return this.numbered ? { event, data, line } : { event, data };
  }

  private take(line: string, lineNo: number, out: SseEvent[]): void {
    if (line === '') {
      this.dispatch(out);
      return;
    }
    // a `:` comment has the field '' and is ignored below (it cannot start like JSON either)
    const colon = line.indexOf(':');
    // Stryker disable next-line EqualityOperator: at colon 0 (a comment) the field is the whole line, still ignored
    const field = colon < 0 ? line : line.slice(0, colon);
    // Stryker disable next-line EqualityOperator: at colon 0 (a comment) the value is '', the line is ignored either way
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') {
      this.dispatch(out);
      this.start = lineNo;
      this.event = value;
    } else if (field === 'data') {
      if (this.data.length && completeJson(this.data.join('\n'))) {
        const keep = this.event;
        this.dispatch(out);
        this.event = keep;
      }
      if (!this.data.length && this.event === null) this.start = lineNo;
      this.data.push(value);
    } else if (/^\s*[{[]/.test(line)) {
      // a line that starts like JSON has no field name (`id:` / `retry:` lines never match)
      this.dispatch(out);
      out.push(this.ev(null, line, lineNo));
    }
  }
}

/** All events of a whole SSE text. */
export function parseSse(text: string): SseEvent[] {
  const p = new SseParser();
  return [...p.push(text), ...p.end()];
}

const SSE_START = /^\uFEFF?(?:[ \t]*(?::[^\n]*|id:[^\n]*|retry:[^\n]*)?\r?\n)*(?:event|data):/;

/** True when the text starts like an SSE stream (`event:` / `data:` lines; blank, comment, `id:` and `retry:` lines allowed before). */
export function looksLikeSse(text: string): boolean {
  return SSE_START.test(text.slice(0, 2048));
}

/** The data of an event as JSON when it parses, else the text itself, trimmed (e.g. `[DONE]`, also when sent as ` [DONE] `). */
export function sseData(e: SseEvent): unknown {
  const t = e.data.trim();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      return JSON.parse(t);
    } catch {
      // not JSON after all: the text, as below
    }
  }
  return t;
}

/** An event's data as a JSON object, or null (`[DONE]`, broken JSON, a non-object). */
export function sseObject(e: SseEvent): Record<string, unknown> | null {
  const v = sseData(e);
  return isObject(v) ? v : null;
}

/**
 * The event payloads one log record holds: raw SSE text (one record for a whole stream, or one
 * `data: …` line), a `{event, data}` wrapper whose data may be JSON text, or the payload itself.
 */
export function eventPayloads(value: unknown): unknown[] {
  if (typeof value === 'string') {
    if (looksLikeSse(value)) return parseSse(value).map(sseData);
    return [value.trim()];
  }
  if (isObject(value)) {
    const v = value;
    if ('data' in v && ('event' in v || Object.keys(v).length === 1) && !('type' in v) && !('object' in v)) {
      const d = v.data;
      return [typeof d === 'string' ? sseData({ event: null, data: d }) : d];
    }
  }
  return [value];
}
