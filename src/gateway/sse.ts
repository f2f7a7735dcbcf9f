/** Incremental server-sent-events parser: feed text as it arrives, get whole events back. */
export interface SseEvent {
  event: string | null;
  data: string;
}

export class SseParser {
  private buf = '';

  push(text: string): SseEvent[] {
    this.buf += text;
    const out: SseEvent[] = [];
    for (;;) {
      const m = /\r?\n\r?\n/.exec(this.buf);
      if (!m) break;
      const block = this.buf.slice(0, m.index);
      this.buf = this.buf.slice(m.index + m[0].length);
      const ev = parseBlock(block);
      if (ev) out.push(ev);
    }
    return out;
  }

  /** The last event when the stream ends without a blank line. */
  end(): SseEvent[] {
    const rest = this.buf;
    this.buf = '';
    const ev = rest.trim() ? parseBlock(rest) : null;
    return ev ? [ev] : [];
  }
}

function parseBlock(block: string): SseEvent | null {
  let event: string | null = null;
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (!line || line.startsWith(':')) continue;
    const i = line.indexOf(':');
    const field = i < 0 ? line : line.slice(0, i);
    let value = i < 0 ? '' : line.slice(i + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (event === null && data.length === 0) return null;
  return { event, data: data.join('\n') };
}
