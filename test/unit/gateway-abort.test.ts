import assert from 'node:assert/strict';
import { test } from 'node:test';
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
