/**
 * Bytes → parsed records, streaming (never the whole file as one string): gzip, BOM / UTF-16,
 * binary sniffing, then one of three splitters — JSON Lines, a top-level JSON array / concatenated
 * JSON values (a string- and depth-aware splitter feeding JSON.parse), or SSE text.
 */
import type { SourceRecord } from './normalizer';

export type ReadEvent =
  | { kind: 'record'; record: SourceRecord }
  | { kind: 'reject'; line: number; reason: string }
  | { kind: 'warning'; message: string };

export interface ReadOptions {
  /** Called with the number of input (possibly compressed) bytes consumed so far. */
  onBytes?: (n: number) => void;
  /** Records larger than this (in characters) are rejected. */
  maxRecordChars?: number;
  /**
   * The stream is a slice of a JSON Lines file that starts at a line boundary (a parallel shard):
   * read it as JSON Lines, numbering lines after `lines` and records after `records`.
   */
  shard?: { lines: number; records: number };
}

export type Container = 'jsonl' | 'json' | 'sse' | 'empty' | 'binary';

const MAX_RECORD = 400 * 1024 * 1024;

export class ReadError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ReadError';
  }
}

async function* chunks(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (value?.length) yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/** Prepend already-read bytes to the rest of a stream. */
async function* prepend(head: Uint8Array[], rest: AsyncGenerator<Uint8Array>): AsyncGenerator<Uint8Array> {
  for (const h of head) yield h;
  yield* rest;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const n = parts.reduce((a, p) => a + p.length, 0);
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

async function peek(gen: AsyncGenerator<Uint8Array>, want: number): Promise<{ head: Uint8Array[]; bytes: Uint8Array }> {
  const head: Uint8Array[] = [];
  let n = 0;
  while (n < want) {
    const r = await gen.next();
    if (r.done) break;
    head.push(r.value);
    n += r.value.length;
  }
  return { head, bytes: concat(head) };
}

const MAGIC: [string, number[]][] = [
  ['PNG image', [0x89, 0x50, 0x4e, 0x47]],
  ['JPEG image', [0xff, 0xd8, 0xff]],
  ['GIF image', [0x47, 0x49, 0x46, 0x38]],
  ['PDF document', [0x25, 0x50, 0x44, 0x46]],
  ['ZIP archive', [0x50, 0x4b, 0x03, 0x04]],
  ['Parquet file', [0x50, 0x41, 0x52, 0x31]],
  ['SQLite / DuckDB database', [0x53, 0x51, 0x4c, 0x69]],
];

export function sniffMagic(b: Uint8Array): string | null {
  for (const [name, sig] of MAGIC) if (sig.every((x, i) => b[i] === x)) return name;
  return null;
}

export function isGzip(b: Uint8Array): boolean {
  return b[0] === 0x1f && b[1] === 0x8b;
}

export function isParquet(b: Uint8Array): boolean {
  return b[0] === 0x50 && b[1] === 0x41 && b[2] === 0x52 && b[3] === 0x31;
}

/** Text encoding from BOM or NUL-byte pattern; null = binary. */
export function sniffEncoding(b: Uint8Array): { encoding: 'utf-8' | 'utf-16le' | 'utf-16be'; bom: number } | null {
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return { encoding: 'utf-8', bom: 3 };
  if (b[0] === 0xff && b[1] === 0xfe) return { encoding: 'utf-16le', bom: 2 };
  if (b[0] === 0xfe && b[1] === 0xff) return { encoding: 'utf-16be', bom: 2 };
  const n = Math.min(b.length, 4096);
  let evenNul = 0;
  let oddNul = 0;
  let ctrl = 0;
  for (let i = 0; i < n; i++) {
    const x = b[i];
    if (x === 0) {
      if (i % 2 === 0) evenNul++;
      else oddNul++;
    } else if (x < 9 || (x > 13 && x < 32 && x !== 27)) ctrl++;
  }
  const half = n / 2;
  if (n >= 4 && oddNul > half * 0.3 && evenNul < half * 0.05) return { encoding: 'utf-16le', bom: 0 };
  if (n >= 4 && evenNul > half * 0.3 && oddNul < half * 0.05) return { encoding: 'utf-16be', bom: 0 };
  if (evenNul + oddNul > 0 || ctrl > n * 0.1) return null;
  return { encoding: 'utf-8', bom: 0 };
}

/** Big integers (> 2^53) are kept exact as text (they are ids); other values as JSON.parse gives them. */
function reviveBig(this: unknown, _key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value === 'number' && !Number.isSafeInteger(value) && Number.isInteger(value) && context?.source && /^-?\d+$/.test(context.source)) {
    return context.source;
  }
  return value;
}

const BIG_DIGITS = /\d{16,}/;

export function parseJson(text: string): unknown {
  if (BIG_DIGITS.test(text)) return JSON.parse(text, reviveBig as (k: string, v: unknown) => unknown);
  return JSON.parse(text);
}

function reason(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  if (e instanceof RangeError) return `JSON too deeply nested or too large to parse (${m})`;
  return `malformed JSON: ${m}`;
}

/** Scanner for JSON values inside a JSON array (depth 1) or concatenated at top level (depth 0). */
class ValueSplitter {
  private depth = 0;
  private inString = false;
  private escape = false;
  private pieces: string[] = [];
  private size = 0;
  private startLine = 0;
  private started = false;
  private arrayMode: boolean;
  private inArray = false;
  private closed = false;
  line = 1;
  constructor(
    arrayMode: boolean,
    private maxChars: number,
  ) {
    this.arrayMode = arrayMode;
  }

  *push(text: string): Generator<ReadEvent | { kind: 'value'; text: string; line: number }> {
    const base = this.arrayMode ? 1 : 0;
    let segStart = this.started ? 0 : -1;
    const flushSeg = (end: number) => {
      if (segStart >= 0 && end > segStart) {
        const piece = text.slice(segStart, end);
        this.size += piece.length;
        if (this.size <= this.maxChars) this.pieces.push(piece);
      }
      segStart = -1;
    };
    for (let i = 0; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      if (ch === 10) this.line++;
      if (this.inString) {
        if (this.escape) this.escape = false;
        else if (ch === 92) this.escape = true;
        else if (ch === 34) this.inString = false;
        continue;
      }
      if (this.arrayMode && !this.inArray) {
        if (ch === 91) {
          this.inArray = true;
          this.depth = 1;
        } else if (!isSpace(ch) && !this.closed) {
          yield { kind: 'reject', line: this.line, reason: `unexpected character '${text[i]}' outside the top-level array` };
          this.closed = true;
        }
        continue;
      }
      if (!this.started) {
        if (isSpace(ch) || (this.depth === base && ch === 44)) continue;
        if (this.arrayMode && ch === 93 && this.depth === 1) {
          this.inArray = false;
          this.closed = true;
          this.depth = 0;
          continue;
        }
        this.started = true;
        this.startLine = this.line;
        segStart = i;
      }
      if (ch === 34) this.inString = true;
      else if (ch === 123 || ch === 91) this.depth++;
      else if (ch === 125 || ch === 93) {
        if (this.depth === base && this.arrayMode) {
          // end of the array right after a scalar element
          flushSeg(i);
          yield* this.emit();
          this.inArray = false;
          this.closed = true;
          this.depth = 0;
          continue;
        }
        this.depth--;
        if (this.depth === base) {
          flushSeg(i + 1);
          yield* this.emit();
        }
      } else if (ch === 44 && this.depth === base) {
        flushSeg(i);
        yield* this.emit();
      } else if (this.depth === base && !this.arrayMode && (ch === 10 || ch === 13)) {
        // top-level scalar on its own line
        flushSeg(i);
        yield* this.emit();
      }
    }
    flushSeg(text.length);
  }

  private *emit(): Generator<ReadEvent | { kind: 'value'; text: string; line: number }> {
    const text = this.pieces.join('');
    const size = this.size;
    this.pieces = [];
    this.size = 0;
    this.started = false;
    if (size > this.maxChars) yield { kind: 'reject', line: this.startLine, reason: `record too large (${size} characters)` };
    else if (text.trim()) yield { kind: 'value', text, line: this.startLine };
  }

  *end(): Generator<ReadEvent | { kind: 'value'; text: string; line: number }> {
    if (this.started) {
      const line = this.startLine;
      const text = this.pieces.join('');
      this.pieces = [];
      this.started = false;
      if (this.depth > (this.arrayMode ? 1 : 0) || this.inString) yield { kind: 'reject', line, reason: 'truncated JSON: the file ended inside this record' };
      else if (text.trim()) yield { kind: 'value', text, line };
    }
    if (this.arrayMode && this.inArray) yield { kind: 'warning', message: 'the JSON array is not closed (file truncated?)' };
  }
}

function isSpace(ch: number): boolean {
  return ch === 32 || ch === 10 || ch === 13 || ch === 9 || ch === 0xfeff;
}

/** Split SSE text (`event:` / `data:` lines, blank-line separated) into events. */
class SseSplitter {
  private data: string[] = [];
  private event: string | null = null;
  private startLine = 0;
  *line(text: string, lineNo: number): Generator<ReadEvent | { kind: 'value'; text: string; line: number; event: string | null }> {
    if (text === '') {
      yield* this.flush();
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (!this.data.length && this.event === null) this.startLine = lineNo;
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field !== 'id' && field !== 'retry') {
      // a bare JSON line between events (SSE saved without prefixes)
      yield* this.flush();
      yield { kind: 'value', text, line: lineNo, event: null };
    }
  }
  *flush(): Generator<ReadEvent | { kind: 'value'; text: string; line: number; event: string | null }> {
    if (this.data.length) {
      const text = this.data.join('\n');
      if (text.trim() !== '[DONE]') yield { kind: 'value', text, line: this.startLine, event: this.event };
    }
    this.data = [];
    this.event = null;
  }
}

/** Read records from a byte stream; yields records, rejected lines and warnings in file order. */
export async function* readRecords(stream: ReadableStream<Uint8Array>, opts: ReadOptions = {}): AsyncGenerator<ReadEvent> {
  const maxChars = opts.maxRecordChars ?? MAX_RECORD;
  let consumed = 0;
  const counted = async function* (src: ReadableStream<Uint8Array>) {
    for await (const c of chunks(src)) {
      consumed += c.length;
      opts.onBytes?.(consumed);
      yield c;
    }
  };
  let gen: AsyncGenerator<Uint8Array> = counted(stream);
  let gzipError: string | null = null;
  let first = await peek(gen, 4096);
  if (first.bytes.length === 0) {
    yield { kind: 'warning', message: 'the file is empty' };
    return;
  }
  if (isGzip(first.bytes)) {
    const body = new ReadableStream<Uint8Array>({
      async pull(ctrl) {
        const r = await rest.next();
        if (r.done) ctrl.close();
        else ctrl.enqueue(r.value);
      },
    });
    const rest = prepend(first.head, gen);
    const inflated = chunks(body.pipeThrough(new DecompressionStream('gzip') as unknown as ReadableWritablePair<Uint8Array, Uint8Array>));
    gen = (async function* () {
      try {
        yield* inflated;
      } catch (e) {
        gzipError = e instanceof Error ? e.message : String(e);
      }
    })();
    first = await peek(gen, 4096);
    if (gzipError && first.bytes.length === 0) throw new ReadError(`the gzip data is corrupt: ${gzipError}`);
  }
  const magic = sniffMagic(first.bytes);
  const enc = magic ? null : sniffEncoding(first.bytes);
  if (!enc) throw new ReadError(`this is a binary file${magic ? ` (${magic})` : ''}, not JSON or JSON Lines text`);
  if (enc.encoding !== 'utf-8') yield { kind: 'warning', message: `decoded as ${enc.encoding.toUpperCase()}` };
  const decoder = new TextDecoder(enc.encoding, { fatal: false, ignoreBOM: false });
  let replaced = 0;
  const texts = async function* (): AsyncGenerator<string> {
    let skip = enc.bom;
    for await (const c of prepend(first.head, gen)) {
      const part = skip ? c.subarray(Math.min(skip, c.length)) : c;
      skip = Math.max(0, skip - c.length);
      const t = decoder.decode(part, { stream: true });
      if (t.includes('\uFFFD')) replaced++;
      if (t) yield t;
    }
    const t = decoder.decode();
    if (t) yield t;
  };

  const src = texts();
  let buffered = '';
  let head: IteratorResult<string>;
  // find the first non-space characters to pick a container
  for (;;) {
    head = await src.next();
    if (head.done) break;
    buffered += head.value;
    if (buffered.length > 65536) break;
    // enough to pick a container: the first line that is not blank and not an SSE comment is complete
    const firstReal = buffered.split('\n').slice(0, -1).find((l) => l.trim() && !l.startsWith(':'));
    if (firstReal !== undefined) break;
  }
  const trimmed = buffered.replace(/^[\s\uFEFF]+/, '');
  if (!trimmed) {
    if (!opts.shard) yield { kind: 'warning', message: 'the file holds only whitespace' };
    return;
  }
  const all = async function* (): AsyncGenerator<string> {
    yield buffered;
    if (head.done) return;
    yield* src;
  };
  let container: Container;
  if (trimmed.startsWith('[')) container = 'json';
  else if (/^(event|data|id|retry):/.test(trimmed) || /^:[^\n]*\n(\s*\n)*(event|data|id|retry):/.test(trimmed)) container = 'sse';
  else if (trimmed.startsWith('{')) {
    container = looksLikeJsonLines(trimmed) ? 'jsonl' : 'json';
  } else container = 'jsonl';
  if (opts.shard) container = 'jsonl';

  let index = opts.shard?.records ?? 0;
  let lastLine = 1;
  if (container === 'json') {
    const splitter = new ValueSplitter(trimmed.startsWith('['), maxChars);
    for await (const t of all()) {
      for (const ev of splitter.push(t)) {
        if (ev.kind === 'value') {
          const r = parseOne(ev.text, ev.line, index);
          if (r.kind === 'record') index++;
          yield r;
        } else yield ev;
      }
    }
    lastLine = splitter.line;
    for (const ev of splitter.end()) {
      if (ev.kind === 'value') {
        const r = parseOne(ev.text, ev.line, index);
        if (r.kind === 'record') index++;
        yield r;
      } else yield ev;
    }
  } else {
    const sse = container === 'sse' ? new SseSplitter() : null;
    let lineNo = opts.shard?.lines ?? 0;
    let carry: string[] = [];
    let carrySize = 0;
    let tooBig = false;
    const handleLine = function* (line: string): Generator<ReadEvent> {
      lineNo++;
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (sse) {
        for (const ev of sse.line(line, lineNo)) {
          if (ev.kind === 'value') {
            const r = parseOne(ev.text, ev.line, index);
            if (r.kind === 'record') index++;
            yield r;
          } else yield ev;
        }
        return;
      }
      if (!line.trim()) return;
      const r = parseOne(line, lineNo, index);
      if (r.kind === 'record') index++;
      yield r;
    };
    for await (const t of all()) {
      let start = 0;
      for (;;) {
        const nl = t.indexOf('\n', start);
        if (nl < 0) {
          const piece = t.slice(start);
          carrySize += piece.length;
          if (carrySize > maxChars) tooBig = true;
          else carry.push(piece);
          break;
        }
        const piece = t.slice(start, nl);
        start = nl + 1;
        if (tooBig) {
          lineNo++;
          yield { kind: 'reject', line: lineNo, reason: `line too long (${carrySize + piece.length} characters)` };
        } else {
          const line = carry.length ? carry.join('') + piece : piece;
          yield* handleLine(line);
        }
        carry = [];
        carrySize = 0;
        tooBig = false;
      }
    }
    if (tooBig) yield { kind: 'reject', line: lineNo + 1, reason: `line too long (${carrySize} characters)` };
    else if (carry.length) {
      const last = carry.join('');
      if (last.trim()) {
        for (const ev of handleLine(last)) {
          if (ev.kind === 'reject' && !sse) yield { ...ev, reason: `truncated last line: ${ev.reason}` };
          else yield ev;
        }
      }
    }
    lastLine = lineNo + 1;
    if (sse) {
      for (const ev of sse.flush()) {
        if (ev.kind === 'value') yield parseOne(ev.text, ev.line, index++);
      }
    }
  }
  if (replaced) yield { kind: 'warning', message: 'the file has bytes that are not valid text in its encoding; they were replaced with U+FFFD' };
  if (gzipError) yield { kind: 'reject', line: lastLine, reason: `the gzip stream is truncated or corrupt from here on (${gzipError}); the records before were kept` };
}

/**
 * Text starting with `{`: JSON Lines, or one (pretty-printed) JSON document / concatenated values?
 * JSON Lines when the first line is a whole object (even a broken one: it ends with `}`), or when a
 * later complete line at column 0 is a whole object on its own — so a malformed first line is one
 * rejected line, not a document that swallows the good lines after it.
 */
export function looksLikeJsonLines(text: string): boolean {
  const lines = text.split('\n');
  lines.pop(); // maybe incomplete
  const first = (lines[0] ?? text).replace(/\r$/, '').trimEnd();
  if (first.endsWith('}')) return true;
  for (const raw of lines.slice(1, 50)) {
    const l = raw.replace(/\r$/, '');
    if (!l.startsWith('{') || !l.trimEnd().endsWith('}')) continue;
    try {
      const v = JSON.parse(l);
      if (v && typeof v === 'object' && !Array.isArray(v)) return true;
    } catch {
      // not a whole object on its own
    }
  }
  return false;
}

function parseOne(text: string, line: number, index: number): ReadEvent {
  try {
    return { kind: 'record', record: { value: parseJson(text), line, index, text } };
  } catch (e) {
    return { kind: 'reject', line, reason: reason(e) };
  }
}
