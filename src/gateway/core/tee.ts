/**
 * The recording side of a forwarded response: bytes as they arrive from the upstream → text
 * (decoded with `stream: true`, so a multi-byte character split across network chunks is kept
 * whole) → SSE events → the assembled final message. A plain module so unit tests reach it.
 *
 * Only the first `limit` bytes are recorded (the agent still gets every byte): a step holds its
 * response up to three times (the message, its text, `raw`), and `raw` JSON-escapes it (a control
 * character takes six), so an unbounded body could pass the longest string V8 can build and the
 * call would not be recorded at all.
 */
import { type GatewayApi, SseParser, streamAccumulator, type WireResponse, wireResponse } from '../../wire';

/** Bytes of a response body the gateway records (16 MiB); the rest reaches the agent and is counted, not kept. */
export const RECORD_LIMIT = 16 * 1024 * 1024;

export class Tee {
  private dec = new TextDecoder();
  private sse = new SseParser();
  private text = '';
  private asm;
  /** Bytes received, recorded or not. */
  received = 0;
  constructor(
    private api: GatewayApi,
    private isSse: boolean,
    private limit = RECORD_LIMIT,
  ) {
    this.asm = streamAccumulator(api);
  }

  /** True once the body passed the limit: what is recorded is its first `limit` bytes. */
  get cut(): boolean {
    return this.received > this.limit;
  }

  push(bytes: Uint8Array): void {
    const room = this.limit - this.received;
    this.received += bytes.length;
    if (room <= 0) return;
    const t = this.dec.decode(bytes.length > room ? bytes.subarray(0, room) : bytes, { stream: true });
    if (this.isSse) for (const e of this.sse.push(t)) this.asm.push(e);
    else this.text += t;
  }

  /** Flush the decoder (a truncated trailing character becomes U+FFFD) and the SSE parser, then assemble. */
  result(): WireResponse {
    const rest = this.dec.decode();
    if (!this.isSse) return wireResponse(this.api, parseOr((this.text += rest)));
    for (const e of [...this.sse.push(rest), ...this.sse.end()]) this.asm.push(e);
    return this.asm.result();
  }

  /** The non-SSE body as parsed JSON (or text; a cut body is always its text); null for a stream. */
  body(): unknown {
    if (this.isSse) return null;
    return this.cut ? this.text : parseOr(this.text);
  }
}

/** `text` cut to its first `limit` bytes of UTF-8 (a character is never split); `bytes` is its whole size when it was cut. */
export function capText(text: string, limit = RECORD_LIMIT): { text: string; bytes: number | null } {
  // a UTF-16 unit takes at most 3 bytes: a short text cannot pass the limit
  if (text.length * 3 <= limit) return { text, bytes: null };
  const { read } = new TextEncoder().encodeInto(text, new Uint8Array(limit));
  return read === text.length ? { text, bytes: null } : { text: text.slice(0, read), bytes: new Blob([text]).size };
}

const mb = (n: number) => `${(n / 1048576).toFixed(1)} MB`;

/** The step's error for a response recorded cut. */
export function cutError(bytes: number, limit = RECORD_LIMIT): string {
  return `response too large to record: the upstream sent ${mb(bytes)}, the gateway records at most ${mb(limit)} of a response; the agent received all of it, the step keeps the first ${mb(limit)}`;
}

export function parseOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
