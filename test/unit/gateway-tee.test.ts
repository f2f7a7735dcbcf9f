import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Tee } from '../../src/gateway/core/tee';

const TEXT = '数据工厂 ok';

/** Bytes cut into pieces of `size`: with 2-byte pieces every 3-byte CJK character is split across two chunks. */
function pieces(text: string, size: number): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.slice(i, i + size));
  return out;
}

function chatSse(words: string[]): string {
  const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm' };
  const ev = words.map((w, i) => `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: i ? { content: w } : { role: 'assistant', content: w }, finish_reason: null }] })}\n\n`);
  return `${ev.join('')}data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`;
}

describe('gateway tee decoding', () => {
  it('an OpenAI stream of non-ASCII text in 1-, 2- and 5-byte network chunks assembles to the exact text', () => {
    for (const size of [1, 2, 5]) {
      const tee = new Tee('chat', true);
      const chunks = pieces(chatSse(['数据', '工厂', ' ok']), size);
      for (const c of chunks) tee.push(c);
      assert.equal(tee.result().message?.content, TEXT, `${size}-byte chunks`);
    }
  });

  it('a character split across exactly two chunks is not replaced by U+FFFD', () => {
    const tee = new Tee('chat', true);
    const bytes = new TextEncoder().encode(chatSse([TEXT]));
    const cut = bytes.indexOf(0xe6) + 1; // inside the first byte sequence of 数
    tee.push(bytes.slice(0, cut));
    tee.push(bytes.slice(cut));
    const got = tee.result().message?.content ?? '';
    assert.ok(!got.includes('\uFFFD'), got);
    assert.equal(got, TEXT);
  });

  it('an Anthropic stream and a JSON body split mid-character', () => {
    const events = [
      ['message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude', content: [], usage: { input_tokens: 3, output_tokens: 0 } } }],
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: TEXT } }],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 4 } }],
      ['message_stop', { type: 'message_stop' }],
    ] as const;
    const tee = new Tee('messages', true);
    for (const c of pieces(events.map(([e, d]) => `event: ${e}\ndata: ${JSON.stringify(d)}\n\n`).join(''), 2)) tee.push(c);
    assert.equal(tee.result().message?.content, TEXT);

    const json = new Tee('chat', false);
    const body = { id: 'c', object: 'chat.completion', model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: TEXT }, finish_reason: 'stop' }] };
    for (const c of pieces(JSON.stringify(body), 2)) json.push(c);
    assert.equal(json.result().message?.content, TEXT);
    assert.deepEqual(json.body(), body);
  });

  it('a truncated trailing character is flushed as one U+FFFD, not dropped silently', () => {
    const tee = new Tee('chat', false);
    const bytes = new TextEncoder().encode('"数');
    tee.push(bytes.slice(0, 2));
    tee.result();
    assert.equal(tee.body(), '"\uFFFD');
  });
});
