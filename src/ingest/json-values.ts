/**
 * JSON text → values, for the reader: a string- and depth-aware splitter of a top-level JSON array's
 * elements or concatenated JSON values (ValueSplitter), the recovery of array elements a broken one
 * swallowed (valueEvents), one value parsed with big integers kept exact (parseOne), and the JSON
 * Lines / document decision (looksLikeJsonLines).
 */
import type { ReadEvent } from './normalizer';
import { minOf } from '../util/extent';

/**
 * Big integers (> 2^53, also past Infinity) are kept exact as text (they are ids); other values as JSON.parse gives
 * them. Only a number's source is digits alone; engines without source text access give no context.
 */
function reviveBig(this: unknown, _key: string, value: unknown, context?: { source?: string }): unknown {
  const source = context?.source ?? '';
  return /^-?\d+$/.test(source) && !Number.isSafeInteger(value) ? source : value;
}

const BIG_DIGITS = /\d{16,}/;

export function parseJson(text: string): unknown {
  // Stryker disable next-line ConditionalExpression,Regex: the pre-test only spares the reviver's cost; the reviver changes nothing in a text without 16+ digits in a row
  if (BIG_DIGITS.test(text)) return JSON.parse(text, reviveBig as (k: string, v: unknown) => unknown);
  return JSON.parse(text);
}

function reason(e: unknown, text: string): string {
  if (text.includes('\u0000')) {
    const nuls = text.split('\u0000').length - 1;
    return `${nuls} NUL bytes in this ${nuls === text.length ? 'line (crash padding or binary data), nothing else' : 'record (crash padding or binary data)'}`;
  }
  const m = e instanceof Error ? e.message : String(e);
  if (e instanceof RangeError) return `JSON too deeply nested or too large to parse (${m})`;
  return `malformed JSON: ${m}`;
}

/** Scanner for JSON values inside a JSON array (depth 1) or concatenated at top level (depth 0). */
export class ValueSplitter {
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
  /** Text after the array was rejected (once: the rest of it is that same reject). */
  private strayRejected = false;
  line = 1;
  constructor(
    arrayMode: boolean,
    private maxChars: number,
    /** Start inside the array (reading the rest of one after a broken element). */
    inside = false,
  ) {
    this.arrayMode = arrayMode;
    if (inside) {
      this.inArray = true;
      this.depth = 1;
    }
  }

  /** The array was closed by text read elsewhere (inside a broken element that was split). */
  markClosed(): void {
    this.inArray = false;
  }

  /** Has this splitter read the array's closing `]` (a sub-splitter over the rest of a broken element)? */
  get isClosed(): boolean {
    return this.closed;
  }

  *push(text: string): Generator<ReadEvent | { kind: 'value'; text: string; line: number }> {
    const base = this.arrayMode ? 1 : 0;
    let segStart = this.started ? 0 : -1;
    const flushSeg = (end: number) => {
      if (segStart >= 0) {
        const piece = text.slice(segStart, end);
        this.size += piece.length;
        // Stryker disable next-line ConditionalExpression: a memory bound only; emit rejects the value by its size
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
        } else if (!isSpace(ch) && !this.strayRejected) {
          // e.g. a second array appended to the file: it is not read, and the report says so
          yield { kind: 'reject', line: this.line, reason: `unexpected character '${text[i]}' outside the top-level array` };
          this.strayRejected = true;
        }
        continue;
      }
      // a separating `,` or the array's `]` before any value starts an empty value that emit drops
      if (!this.started) {
        if (isSpace(ch)) continue;
        this.started = true;
        this.startLine = this.line;
        segStart = i;
      }
      if (ch === 34) this.inString = true;
      else if (ch === 123 || ch === 91) this.depth++;
      else if (ch === 125 || ch === 93) {
        if (this.depth === base) {
          // the array's end right after a scalar element; outside an array, a stray closing bracket between values
          // (a value of its own, rejected: counted down, it would swallow every value after it)
          flushSeg(this.arrayMode ? i : i + 1);
          yield* this.emit();
          this.inArray = false;
          this.closed = true;
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
    else if (text) yield { kind: 'value', text, line: this.startLine };
  }

  /** The end of the text (call once, last): the value left open, and whether the array was closed. */
  *end(): Generator<ReadEvent | { kind: 'value'; text: string; line: number; truncated?: boolean }> {
    // (not started: no pieces, depth at its base, not in a string — nothing to emit)
    const text = this.pieces.join('');
    const line = this.startLine;
    // an element left open: it may have swallowed good elements after it, which the reader splits off
    if (this.depth > (this.arrayMode ? 1 : 0) || this.inString) yield { kind: 'value', text, line, truncated: true };
    else if (text) yield { kind: 'value', text, line };
    if (this.inArray) yield { kind: 'warning', message: 'the JSON array is not closed (file truncated?)' };
  }
}

function isSpace(ch: number): boolean {
  return ch === 32 || ch === 10 || ch === 13 || ch === 9 || ch === 0xfeff;
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
  if ((lines[0] ?? text).trimEnd().endsWith('}')) return true;
  for (const l of lines.slice(0, 50)) {
    if (!l.startsWith('{')) continue;
    try {
      JSON.parse(l); // starts with `{` and parses: a whole object
      return true;
    } catch {
      // not a whole object on its own
    }
  }
  return false;
}

export type SplitValue = { kind: 'value'; text: string; line: number; truncated?: boolean };
const TRUNCATED = 'truncated JSON: the file ended inside this record';

/**
 * Parse one value the splitter found. In a JSON array, an element that does not parse may have
 * swallowed the elements after it (an unbalanced `[` or `{` keeps the splitter's depth up): split it
 * at the next line that starts an element after a comma, reject the broken head by its line, and read
 * the rest as the array's remaining elements (recursively, so several broken elements each lose only
 * themselves). `closed` says the rest closed the array.
 */
export function* valueEvents(ev: SplitValue, arrayMode: boolean, maxChars: number, index: number): Generator<ReadEvent | { kind: 'closed' }> {
  const r = parseOne(ev.text, ev.line, index);
  // Stryker disable next-line ConditionalExpression,StringLiteral: a record sent on is balanced, so the split below finds nothing and yields it as is
  if (r.kind === 'record' || !arrayMode) {
    // Stryker disable next-line ConditionalExpression,LogicalOperator: a truncated value never parses
    yield ev.truncated && r.kind === 'reject' ? { ...r, reason: TRUNCATED } : r;
    return;
  }
  // only an element whose brackets do not pair up can have run into the next ones; the elements of a
  // pretty-printed array are the least indented lines that start an object or array
  const candidates = balanced(ev.text) ? [] : [...ev.text.matchAll(/,[ \t\r]*\n([ \t]*)(?=[{[])/g)];
  const indent = minOf(candidates.map((m) => m[1].length));
  for (const m of candidates.filter((c) => c[1].length === indent).slice(0, 50)) {
    // from the comma: the sub-splitter reads it as an empty value
    const at = m.index ?? 0;
    const sub = new ValueSplitter(true, maxChars, true);
    sub.line = ev.line + countNewlines(ev.text, at);
    const rest = [...sub.push(ev.text.slice(at)), ...sub.end()];
    const first = rest.find((x) => x.kind === 'value');
    if (!first || parseOne(first.text, first.line, 0).kind !== 'record') continue;
    // the head never parses: a value that parses ends where the splitter's depth returns, so it is never split
    const head = parseOne(ev.text.slice(0, at), ev.line, index) as Extract<ReadEvent, { kind: 'reject' }>;
    yield { ...head, reason: `${head.reason} (the elements after it were read on their own)` };
    let next = index;
    let closed = sub.isClosed;
    for (const x of rest) {
      if (x.kind !== 'value') {
        // the sub-splitter's "array not closed" warning: the reader's own splitter says it once
        if (x.kind !== 'warning') yield x;
        continue;
      }
      for (const y of valueEvents(x, true, maxChars, next)) {
        if (y.kind === 'record') next++;
        if (y.kind === 'closed') closed = true;
        else yield y;
      }
    }
    if (closed) yield { kind: 'closed' };
    return;
  }
  yield ev.truncated ? { ...r, reason: TRUNCATED } : r;
}

/** Do the brackets of this JSON text (outside strings) pair up and close? */
function balanced(text: string): boolean {
  const stack: number[] = [];
  let inString = false;
  // Stryker disable next-line EqualityOperator: charCodeAt past the end is NaN, which no branch takes
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92) i++;
      else if (ch === 34) inString = false;
    } else if (ch === 34) inString = true;
    else if (ch === 123 || ch === 91) stack.push(ch + 2); // { → }, [ → ]
    else if (ch === 125 || ch === 93) {
      if (stack.pop() !== ch) return false;
    }
  }
  return stack.length === 0 && !inString;
}

function countNewlines(text: string, end: number): number {
  let n = 0;
  // Stryker disable next-line EqualityOperator: the split point follows a newline and is never one, and the text starts with { or [
  for (let i = text.indexOf('\n'); i >= 0 && i < end; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * The deepest a record may nest (objects and arrays): 200 levels, as far as redaction walks (redact.ts). A deeper
 * record is hostile or broken; read, it overflowed the stack of one normalizer or another, or was kept whole as the
 * text of one message by the generic reading (decision 055).
 */
export const MAX_DEPTH = 200;

/**
 * Does this JSON text nest deeper than MAX_DEPTH? Brackets inside strings do not count (strings are skipped with
 * indexOf: 110 ms per 100 MB of chat records, against 180 ms for JSON.parse). Only a text of more than 2 × MAX_DEPTH
 * characters can.
 */
export function tooDeep(text: string): boolean {
  if (text.length <= 2 * MAX_DEPTH) return false;
  // the depth is at most the number of opening brackets, strings included: counting them with indexOf (engine code)
  // settles most records at a fraction of the scan below
  if (!moreOpenings(text, MAX_DEPTH)) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 34) {
      // the closing quote: one not escaped (preceded by an even number of backslashes)
      let end = text.indexOf('"', i + 1);
      for (; end > 0; end = text.indexOf('"', end + 1)) {
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === 92) slashes++;
        if (slashes % 2 === 0) break;
      }
      // an unterminated string: JSON.parse says what is wrong
      if (end < 0) return false;
      i = end;
    } else if (ch === 123 || ch === 91) {
      if (++depth > MAX_DEPTH) return true;
    } else if (ch === 125 || ch === 93) depth--;
  }
  return false;
}

/** Does `text` hold more than `n` of `{` and `[` together? */
function moreOpenings(text: string, n: number): boolean {
  let count = 0;
  for (let i = text.indexOf('{'); i >= 0; i = text.indexOf('{', i + 1)) if (++count > n) return true;
  for (let i = text.indexOf('['); i >= 0; i = text.indexOf('[', i + 1)) if (++count > n) return true;
  return false;
}

export const TOO_DEEP = `nested more than ${MAX_DEPTH} levels deep: a record this deep is hostile or broken (the importer reads ${MAX_DEPTH} levels, as it redacts them); the other records are read`;

export function parseOne(text: string, line: number, index: number, bytes?: Uint8Array): Extract<ReadEvent, { kind: 'record' | 'reject' }> {
  if (tooDeep(text)) return { kind: 'reject', line, reason: TOO_DEEP };
  try {
    return { kind: 'record', record: bytes ? { value: parseJson(text), line, index, text, bytes } : { value: parseJson(text), line, index, text } };
  } catch (e) {
    return { kind: 'reject', line, reason: reason(e, text) };
  }
}
