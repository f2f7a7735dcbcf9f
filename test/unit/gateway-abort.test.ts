import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CallAborts } from '../../src/gateway/core/call-aborts';
import { abortRelayFetch } from '../../src/gateway/page/abort';
import { ABORT_CHANNEL, CALL_ID_HEADER } from '../../src/gateway/core/protocol';

test('abortRelayFetch tags a call and announces its abort on the gateway abort channel', async () => {
  const seen: { url: string; headers: Headers }[] = [];
  const fake = (async (url: RequestInfo | URL, init?: RequestInit) => {
    seen.push({ url: String(url), headers: new Headers(init?.headers) });
    return new Response('{}');
  }) as typeof fetch;
  const listen = new BroadcastChannel(ABORT_CHANNEL);
  const got = new Promise<unknown>((ok) => listen.addEventListener('message', (e) => ok((e as MessageEvent).data), { once: true }));
  try {
    const f = abortRelayFetch(fake);
    await f('http://x/gateway/v1/models');
    assert.equal(seen[0].headers.get(CALL_ID_HEADER), null, 'no signal, no tag');
    const ac = new AbortController();
    await f('http://x/gateway/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, signal: ac.signal });
    const id = seen[1].headers.get(CALL_ID_HEADER);
    assert.match(id ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(seen[1].headers.get('content-type'), 'application/json', 'the caller\'s headers are kept');
    ac.abort();
    assert.deepEqual(await got, { type: 'aw-gateway:abort', callId: id });
  } finally {
    listen.close();
  }
});

test('CallAborts: a cancel before its call is kept for a bounded time and number, applied once when the call registers', () => {
  let t = 1000;
  const book = new CallAborts({ ttlMs: 100, max: 3, now: () => t });
  // in flight: applied at once
  const a = new AbortController();
  book.register('a', a);
  assert.equal(book.abort('a'), true);
  assert.equal(a.signal.aborted, true);
  assert.equal((a.signal.reason as DOMException).message, 'cancelled by client');
  book.release('a', a);
  // early: remembered, applied on register, used up
  assert.equal(book.abort('b'), false);
  assert.equal(book.pending, 1);
  const b = new AbortController();
  book.register('b', b);
  assert.equal(b.signal.aborted, true, 'the early cancel is applied when the call registers');
  assert.equal(book.pending, 0);
  book.release('b', b);
  const b2 = new AbortController();
  book.register('b', b2);
  assert.equal(b2.signal.aborted, false, 'an early cancel is applied once');
  book.release('b', b2);
  // bounded time: a cancel older than ttlMs is forgotten
  book.abort('old');
  t += 100;
  const old = new AbortController();
  book.register('old', old);
  assert.equal(old.signal.aborted, false, 'expired');
  book.release('old', old);
  t += 1;
  const young = new AbortController();
  book.abort('young');
  t += 99;
  book.register('young', young);
  assert.equal(young.signal.aborted, true, 'not yet expired');
  book.release('young', young);
  // bounded size: the oldest is forgotten first
  for (const id of ['c1', 'c2', 'c3', 'c4']) book.abort(id);
  assert.equal(book.pending, 3);
  const c1 = new AbortController();
  const c4 = new AbortController();
  book.register('c1', c1);
  book.register('c4', c4);
  assert.deepEqual([c1.signal.aborted, c4.signal.aborted], [false, true]);
  // release only drops the controller it registered
  const d1 = new AbortController();
  const d2 = new AbortController();
  book.register('d', d1);
  book.register('d', d2);
  book.release('d', d1);
  assert.equal(book.abort('d'), true);
  assert.deepEqual([d1.signal.aborted, d2.signal.aborted], [false, true]);
  // a cancel after the call ended is only remembered (and expires)
  book.release('d', d2);
  assert.equal(book.abort('d'), false);
  t += 101;
  assert.equal(book.pending, 0);
});
