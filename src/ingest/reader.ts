/**
 * Bytes → parsed records, streaming (never the whole file as one string): gzip, BOM / UTF-16,
 * binary sniffing, then one of three splitters — JSON Lines, a top-level JSON array / concatenated
 * JSON values (a string- and depth-aware splitter feeding JSON.parse), or SSE text.
 *
 * One concept: readRecords is one streaming generator whose container sniffing and three splitters share the byte, line and record counters; the JSON value splitter is json-values.ts.
 */
import { looksLikeJsonLines, parseOne, type SplitValue, ValueSplitter, valueEvents } from './json-values';
import type { ReadEvent } from './normalizer';
import { looksLikeYaml, yamlRecords } from './yaml-records';
import { looksLikeSse, type SseEvent, SseParser } from '../wire/sse';

export type { ReadEvent } from './normalizer';

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

export type Container = 'jsonl' | 'json' | 'sse' | 'yaml' | 'text' | 'empty' | 'binary';

/** Line-oriented text logs a normalizer reads line by line (each line a string record): Aider's LLM history and chat history. */
const TEXT_LOGS = [/^TO LLM \d{4}-\d{2}-\d{2}T\d{2}:\d{2}/, /^# aider chat started at \d{4}-\d{2}-\d{2}/];

/** The largest record read, in characters of its text (bytes, for an archive's entry): 400 MB. */
export const MAX_RECORD = 400 * 1024 * 1024;

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
      if (value.length) yield value;
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
  if (evenNul + oddNul === 0 && ctrl <= n * 0.1) return { encoding: 'utf-8', bom: 0 };
  // NUL or control bytes: text with crash padding or a stray byte (the bad lines are rejected one by
  // one), or binary? Text when what is not NUL is valid UTF-8, control bytes other than NUL are rare,
  // and the first thing after any padding starts a JSON value or an SSE field.
  if (ctrl > n * 0.02 || !validUtf8Head(b.subarray(0, n))) return null;
  const i = b.subarray(0, n).findIndex((x) => x !== 0 && x !== 32 && x !== 9 && x !== 10 && x !== 13);
  // Stryker disable next-line ConditionalExpression: without it c is b[-1] (undefined) and the SSE test reads padding: null either way
  if (i < 0) return null;
  const c = b[i];
  const start = c === 0x7b || c === 0x5b || c === 0x3a || /^(data|event|id|retry):/.test(String.fromCharCode(...b.subarray(i, i + 6)));
  return start ? { encoding: 'utf-8', bom: 0 } : null;
}

/** Are all these bytes below 0x80 (ASCII)? Four at a time where the view is aligned. */
export function isAscii(b: Uint8Array): boolean {
  let i = 0;
  if (b.byteOffset % 4 === 0) {
    const words = new Uint32Array(b.buffer, b.byteOffset, b.length >> 2);
    let or = 0;
    for (let k = 0; k < words.length; k++) or |= words[k];
    if (or & 0x80808080) return false;
    i = words.length << 2;
  }
  let or = 0;
  for (; i < b.length; i++) or |= b[i];
  return (or & 0x80) === 0;
}

/** Is this head valid UTF-8 (NUL is a valid character; a character cut at its end is fine)? */
function validUtf8Head(b: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(b, { stream: true });
  } catch {
    return false;
  }
  return true;
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
        gzipError = (e as Error).message; // DecompressionStream fails with a TypeError
      }
    })();
    first = await peek(gen, 4096);
    if (gzipError && first.bytes.length === 0) throw new ReadError(`the gzip data is corrupt: ${gzipError}`);
  }
  // (also a gzip file whose content is empty)
  if (first.bytes.length === 0) {
    yield { kind: 'warning', message: 'the file is empty' };
    return;
  }
  const magic = sniffMagic(first.bytes);
  const enc = magic ? null : sniffEncoding(first.bytes);
  if (!enc) throw new ReadError(`this is a binary file${magic ? ` (${magic})` : ''}, not JSON or JSON Lines text`);
  if (enc.encoding !== 'utf-8') yield { kind: 'warning', message: `decoded as ${enc.encoding.toUpperCase()}` };
  // Strict while the bytes are valid text, so a U+FFFD the file holds is that character, not a replaced byte. At the
  // first invalid byte (or a character cut at the end) a lenient decoder takes over: it first reads the last bytes
  // decoded (from an even offset, for UTF-16), whose output was already given, to hold the same unfinished character.
  let decoder = new TextDecoder(enc.encoding, { fatal: true });
  let replaced = false;
  let tail: Uint8Array = new Uint8Array(0);
  let decoded = 0;
  const decode = (part: Uint8Array, stream: boolean): string => {
    try {
      return decoder.decode(part, { stream });
    } catch {
      replaced = true;
      decoder = new TextDecoder(enc.encoding);
      // Stryker disable next-line ArithmeticOperator: decoded + tail.length has the same parity
      const from = decoded - tail.length;
      decoder.decode(tail.subarray(from % 2), { stream: true });
      return decoder.decode(part, { stream });
    }
  };
  // The bytes of the text last yielded when it is all ASCII (then a character is a byte): a line read from it has its
  // UTF-8 already, and `raw` copies it instead of encoding the line again (RecordSource.bytes).
  let asciiBytes: Uint8Array | null = null;
  const texts = async function* (): AsyncGenerator<string> {
    let skip = enc.bom;
    for await (const c of prepend(first.head, gen)) {
      const part = c.subarray(Math.min(skip, c.length));
      skip = Math.max(0, skip - c.length);
      const s = decode(part, true);
      asciiBytes = enc.encoding === 'utf-8' && s.length === part.length && isAscii(part) ? part : null;
      yield s;
      tail = concat([tail, part.subarray(-4)]).subarray(-4);
      decoded += part.length;
    }
    asciiBytes = null;
    yield decode(new Uint8Array(0), false);
  };

  const src = texts();
  let buffered = '';
  let head: IteratorResult<string>;
  // find the first non-space characters to pick a container
  for (;;) {
    head = await src.next();
    if (head.done) break;
    buffered += head.value;
    // Stryker disable next-line ConditionalExpression: a memory bound only; past it the head would grow to its first whole line, and a first line cut at the bound is read as JSON Lines, as it is whole
    if (buffered.length > 65536) break;
    // enough to pick a container: the first line that is not blank and not an SSE comment is complete
    const complete = buffered.split('\n').slice(0, -1);
    const firstReal = complete.find((l) => l.trim() && !l.startsWith(':'));
    // a first line that opens an object without closing it: pretty-printed JSON, or a broken JSON Lines
    // record? a few more lines tell (looksLikeJsonLines)
    const open = !!firstReal?.trimStart().startsWith('{') && !firstReal.trimEnd().endsWith('}');
    if (firstReal !== undefined && (!open || complete.length > 8)) break;
  }
  const trimmed = buffered.replace(/^[\s\uFEFF]+/, '');
  if (!trimmed) {
    if (!opts.shard) yield { kind: 'warning', message: 'the file holds only whitespace' };
    return;
  }
  let inHead = true;
  const all = async function* (): AsyncGenerator<string> {
    yield buffered;
    inHead = false;
    yield* src; // (nothing when the head was the whole text)
  };
  // Stryker disable next-line StringLiteral: any container but json, sse and yaml is read as JSON Lines
  let container: Container = 'jsonl';
  // a shard is a slice of a JSON Lines file
  if (!opts.shard) {
    if (trimmed.startsWith('[')) container = 'json';
    else if (looksLikeSse(trimmed)) container = 'sse';
    else if (trimmed.startsWith('{')) {
      // a first line longer than the head (a big trajectory) is cut in it: a JSON Lines record too (read as a
      // document, one broken line further on would swallow every record after it)
      const cut = !head.done && !trimmed.includes('\n');
      if (!cut && !looksLikeJsonLines(trimmed)) container = 'json';
    } else if (TEXT_LOGS.some((re) => re.test(trimmed))) container = 'text';
    else if (looksLikeYaml(trimmed)) container = 'yaml'; // VCR cassettes: read whole by yaml-records.ts
  }

  let index = opts.shard?.records ?? 0;
  let lastLine = 1;
  if (container === 'yaml') yield* yamlRecords(all(), maxChars);
  else if (container === 'json') {
    const arrayMode = trimmed.startsWith('[');
    const splitter = new ValueSplitter(arrayMode, maxChars);
    const value = function* (ev: SplitValue): Generator<ReadEvent> {
      for (const r of valueEvents(ev, arrayMode, maxChars, index)) {
        if (r.kind === 'record') index++;
        if (r.kind === 'closed') splitter.markClosed();
        else yield r;
      }
    };
    for await (const t of all()) {
      for (const ev of splitter.push(t)) {
        if (ev.kind === 'value') yield* value(ev);
        else yield ev;
      }
    }
    lastLine = splitter.line;
    for (const ev of splitter.end()) {
      if (ev.kind === 'value') yield* value(ev);
      else yield ev;
    }
  } else {
    const sse = container === 'sse' ? new SseParser() : null;
    const sseRecords = function* (evs: SseEvent[]): Generator<ReadEvent> {
      for (const ev of evs) {
        if (ev.data.trim() === '[DONE]') continue;
        const r = parseOne(ev.data, ev.line ?? lineNo, index);
        if (r.kind === 'record') index++;
        yield r;
      }
    };
    let lineNo = opts.shard?.lines ?? 0;
    let carry: string[] = [];
    let carrySize = 0;
    const text = container === 'text';
    const handleLine = function* (line: string, bytes?: Uint8Array): Generator<ReadEvent> {
      lineNo++;
      if (line.endsWith('\r')) {
        line = line.slice(0, -1);
        bytes = bytes?.subarray(0, -1);
      }
      if (text) {
        yield { kind: 'record', record: { value: line, line: lineNo, index: index++ } };
        return;
      }
      if (sse) {
        yield* sseRecords(sse.line(line, lineNo));
        return;
      }
      if (!line.trim()) return;
      // an SSE data line saved into a JSON Lines log (`data: {…}`): its payload is the record
      const data = /^data:\s?(.*)/s.exec(line);
      if (data && data[1].trim() === '[DONE]') return;
      const r = data ? parseOne(data[1], lineNo, index, bytes?.subarray(line.length - data[1].length)) : parseOne(line, lineNo, index, bytes);
      if (r.kind === 'record') index++;
      yield r;
    };
    for await (const t of all()) {
      // (set by texts() for the text it yielded last: this one)
      const ascii = inHead ? null : (asciiBytes as Uint8Array | null);
      let start = 0;
      for (;;) {
        const nl = t.indexOf('\n', start);
        if (nl < 0) {
          const piece = t.slice(start);
          carrySize += piece.length;
          // Stryker disable next-line ConditionalExpression: a memory bound only; the line's size decides its reject
          if (carrySize <= maxChars) carry.push(piece);
          break;
        }
        const piece = t.slice(start, nl);
        start = nl + 1;
        // the whole line's size, also when it came in one chunk
        const size = carrySize + piece.length;
        if (size > maxChars) {
          lineNo++;
          yield { kind: 'reject', line: lineNo, reason: `line too long (${size} characters)` };
        } else if (carry.length === 0 && ascii) {
          yield* handleLine(piece, ascii.subarray(start - piece.length - 1, start - 1));
        } else {
          yield* handleLine(carry.join('') + piece);
        }
        carry = [];
        carrySize = 0;
      }
    }
    if (carrySize > maxChars) yield { kind: 'reject', line: lineNo + 1, reason: `line too long (${carrySize} characters)` };
    else {
      const last = carry.join('');
      if (last.trim()) {
        for (const ev of handleLine(last)) {
          if (ev.kind === 'reject' && !sse) yield { ...ev, reason: `truncated last line: ${ev.reason}` };
          else yield ev;
        }
      }
    }
    lastLine = lineNo + 1;
    if (sse) yield* sseRecords(sse.end());
  }
  if (replaced) yield { kind: 'warning', message: 'the file has bytes that are not valid text in its encoding; they were replaced with U+FFFD' };
  if (gzipError) yield { kind: 'reject', line: lastLine, reason: `the gzip stream is truncated or corrupt from here on (${gzipError}); the records before were kept` };
}
