/**
 * The recording side of a forwarded response: bytes as they arrive from the upstream → text
 * (decoded with `stream: true`, so a multi-byte character split across network chunks is kept
 * whole) → SSE events → the assembled final message. A plain module so unit tests reach it.
 */
import { type Api, SseParser, streamAccumulator, type WireResponse, wireResponse } from '../../wire';

export class Tee {
  private dec = new TextDecoder();
  private sse = new SseParser();
  private text = '';
  private asm;
  constructor(
    private api: Api,
    private isSse: boolean,
  ) {
    this.asm = streamAccumulator(api);
  }

  push(bytes: Uint8Array): void {
    const t = this.dec.decode(bytes, { stream: true });
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

  /** The non-SSE body as parsed JSON (or text); null for a stream. */
  body(): unknown {
    return this.isSse ? null : parseOr(this.text);
  }
}

export function parseOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
