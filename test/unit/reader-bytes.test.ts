/**
 * A JSON Lines record read from an ASCII stretch of the file carries its line's bytes as read (SourceRecord.bytes),
 * and the `raw` column copies them instead of encoding the text again (issue 34). What must hold: bytes, when given,
 * are exactly the record's text in UTF-8 — whatever the chunking, with CRLF lines, `data:` lines, non-ASCII text,
 * a BOM, invalid bytes, shards — and the raw column is the same as with the text encoded.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tableFromIPC } from 'apache-arrow';
import { ingestFile } from '../../src/ingest/pipeline';
import { isAscii, readRecords, type ReadOptions } from '../../src/ingest/reader';
import { redactedJson } from '../../src/record/redact';
import { streamOf } from './helpers/streams';

const enc = new TextEncoder();

/** A chat line of about `n` characters; `k` makes it unique. */
const chatLine = (k: number, n = 300) => JSON.stringify({ id: `t${k}`, messages: [{ role: 'user', content: `question ${k} ${'x'.repeat(n)}` }, { role: 'assistant', content: `answer ${k}` }] });

/** The file: a head past 64 KB (the reader sniffs it as text), then lines of every kind the byte path must get right. */
function file(): string {
  const lines: string[] = [];
  for (let k = 0; k < 260; k++) lines.push(chatLine(k));
  lines.push(`${chatLine(1000)}\r`); // CRLF
  lines.push(`data: ${chatLine(1001)}`); // an SSE data line saved into a JSON Lines log
  lines.push(`data:${chatLine(1002)}`);
  lines.push(`  ${chatLine(1003)}  `); // padded: raw is the trimmed text
  lines.push(chatLine(1005).replace('question', 'my key is sk-abcdefghijklmnopqrstuvwx')); // redacted: raw re-serialized
  for (let k = 2000; k < 2400; k++) lines.push(chatLine(k, k % 7 === 0 ? 70_000 : 200)); // some longer than a chunk
  lines.push(chatLine(1004).replace('question', 'frågor ✓ 𝄞')); // non-ASCII (its stretch of the file has no bytes)
  return `${lines.join('\n')}\n`;
}

async function records(bytes: Uint8Array, chunk: number, opts: ReadOptions = {}) {
  const out: { text: string; bytes?: Uint8Array }[] = [];
  for await (const ev of readRecords(streamOf(bytes, chunk), opts)) if (ev.kind === 'record') out.push({ text: ev.record.text ?? '', bytes: ev.record.bytes });
  return out;
}

describe('reader: a line’s bytes as read', () => {
  it('are exactly the record’s text, whatever the chunking; ASCII lines past the head have them', async () => {
    const bytes = enc.encode(file());
    for (const chunk of [333, 4096, 65536, 1 << 20]) {
      const recs = await records(bytes, chunk);
      assert.equal(recs.length, 266 + 400, `chunk ${chunk}`);
      let withBytes = 0;
      for (const r of recs) {
        if (!r.bytes) continue;
        withBytes++;
        assert.deepEqual(r.bytes, enc.encode(r.text), `chunk ${chunk}`);
      }
      // the byte path is taken (lines inside one ASCII chunk, after the head)
      if (chunk >= 4096) assert.ok(withBytes > 200, `chunk ${chunk}: ${withBytes} records with bytes`);
    }
  });

  it('are never given for text that is not the bytes as read: a BOM-less UTF-16 file, invalid bytes, non-ASCII chunks', async () => {
    const text = file();
    // invalid UTF-8 (a lone 0xFF) inside records' strings: that stretch decodes with U+FFFD, which is not its byte
    const parts = text.split(/(?<=question 2[0-3][05]0 )/);
    const bad = new Uint8Array(Buffer.concat(parts.flatMap((p, i) => (i ? [Buffer.from([0xff]), Buffer.from(p)] : [Buffer.from(p)]))));
    assert.equal(parts.length, 9);
    // a lead byte (0xC3) as the last byte of a 4 KiB chunk, before ASCII: the next chunk's text starts with U+FFFD
    const cut = enc.encode(text);
    const ends = [];
    const lines = (at: number) => cut.subarray(at, at + 4096).filter((b) => b === 10).length;
    for (let k = 30; k < 900 && ends.length < 8; k++) if (cut[4096 * k - 1] === 0x78 && cut[4096 * k] === 0x78 && lines(4096 * k) >= 3) ends.push(4096 * k - 1);
    for (const e of ends) cut[e] = 0xc3;
    assert.equal(ends.length, 8);
    for (const input of [bad, cut, enc.encode(`\uFEFF${text}`), enc.encode(text.replaceAll('question', 'ünïcödé'))]) {
      for (const chunk of [4096, 1 << 20]) {
        const recs = await records(input, chunk);
        assert.equal(recs.reduce((n, r) => n + r.text.split('\uFFFD').length - 1, 0), input === bad || input === cut ? 8 : 0);
        for (const r of recs) if (r.bytes) assert.deepEqual(r.bytes, enc.encode(r.text));
      }
    }
    const utf16 = new Uint8Array(text.length * 2);
    for (let i = 0; i < text.length; i++) utf16[2 * i] = text.charCodeAt(i) & 0xff;
    for (const r of await records(utf16, 4096)) assert.equal(r.bytes, undefined);
  });

  it('isAscii: any byte from 0x80 up, at any place and alignment, is not ASCII', () => {
    const buf = new Uint8Array(64).fill(0x41);
    for (const from of [0, 1, 2, 3]) {
      for (const len of [0, 1, 3, 4, 5, 8, 13, 31]) {
        const view = buf.subarray(from, from + len);
        assert.equal(isAscii(view), true);
        for (let i = 0; i < len; i++) {
          view[i] = 0x80 + i;
          assert.equal(isAscii(view), false, `offset ${from}, length ${len}, at ${i}`);
          view[i] = 0x41;
        }
      }
    }
  });

  it('hold in a shard (a slice of the file read as JSON Lines)', async () => {
    const bytes = enc.encode(file());
    const start = bytes.indexOf(10, 100_000) + 1;
    const recs = await records(bytes.subarray(start), 65536, { shard: { lines: 100, records: 100 } });
    assert.ok(recs.filter((r) => r.bytes).length > 100);
    for (const r of recs) if (r.bytes) assert.deepEqual(r.bytes, enc.encode(r.text));
  });

  it('the raw column is each record’s redacted text, as with the text encoded', async () => {
    const text = file();
    const lines = text.split('\n');
    const raws = new Map<number, string>();
    // File.stream() in Chromium hands the reader 64 KiB chunks (Node's Blob, the whole file at once)
    const bytes = enc.encode(text);
    const chunked = new (class extends File {
      override stream() {
        return streamOf(bytes, 65536) as ReturnType<File['stream']>;
      }
    })([bytes], 'bytes.jsonl');
    await ingestFile(
      chunked,
      {
        beginImport: async () => 1,
        setImportSource: async () => {},
        appendBatch: async (_id, ipc) => {
          for (const row of tableFromIPC(ipc).toArray()) raws.set(Number(row.source_line), String(row.raw));
        },
        commitImport: async (_id, info) => ({ rowsAdded: info.rowsMade }),
        abortImport: async () => {},
      },
      { shards: undefined },
    );
    assert.equal(raws.size, 666);
    for (const [line, raw] of raws) {
      const l = lines[line - 1].replace(/\r$/, '');
      const payload = /^data:\s?(.*)/s.exec(l)?.[1] ?? l;
      assert.equal(raw, redactedJson(JSON.parse(payload), payload), `line ${line}`);
    }
    assert.ok(!raws.get(265)?.includes('sk-abcdefghijklmnopqrstuvwx'));
  });
});
