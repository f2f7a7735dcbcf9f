import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type RequestFacts, refusal } from '../../src/gateway/core/admit';

const SELF = 'http://127.0.0.1:5173';
// what Chromium shows the gateway worker for a fetch() from its own page (measured: Origin and Sec-Fetch-Site are not exposed)
const own: RequestFacts = { mode: 'cors', destination: '', origin: null, secFetchSite: null, clientUrl: `${SELF}/workbench/?pool=x` };

describe('gateway admission (who may drive the gateway)', () => {
  it('serves fetch() from a page or a worker of its own origin', () => {
    assert.equal(refusal(own, SELF), null);
    assert.equal(refusal({ ...own, mode: 'same-origin', clientUrl: `${SELF}/workbench/assets/agent.worker-abc.js` }, SELF), null);
    assert.equal(refusal({ ...own, origin: SELF, secFetchSite: 'same-origin' }, SELF), null);
  });

  it('refuses every navigation, whatever else it carries (a cross-site form POST, a link, a frame)', () => {
    for (const destination of ['document', 'iframe', 'frame', 'object', 'embed']) {
      const why = refusal({ ...own, mode: 'navigate', destination, clientUrl: null }, SELF);
      assert.match(why ?? '', /refused a navigation/);
      assert.match(why ?? '', /another site could use one to spend your API key/);
    }
    // even when the navigation claims to be same-origin
    assert.match(refusal({ ...own, mode: 'navigate', destination: 'document', origin: SELF, secFetchSite: 'same-origin' }, SELF) ?? '', /navigation/);
  });

  it('refuses loads that are not fetch() calls', () => {
    for (const destination of ['image', 'script', 'style', 'font', 'report']) assert.match(refusal({ ...own, destination }, SELF) ?? '', new RegExp(`"${destination}" load`));
  });

  it('refuses requests whose metadata names another site or origin', () => {
    for (const site of ['cross-site', 'same-site', 'none']) assert.match(refusal({ ...own, secFetchSite: site }, SELF) ?? '', new RegExp(`Sec-Fetch-Site: ${site}`));
    for (const origin of ['http://localhost:5173', 'http://127.0.0.1:9999', 'null', 'https://evil.example']) assert.match(refusal({ ...own, origin }, SELF) ?? '', /another origin/);
  });

  it('refuses requests with no client of this origin', () => {
    assert.match(refusal({ ...own, clientUrl: null }, SELF) ?? '', /no client/);
    assert.match(refusal({ ...own, clientUrl: 'http://localhost:5173/workbench/' }, SELF) ?? '', /client of another origin \(http:\/\/localhost:5173\)/);
    assert.match(refusal({ ...own, clientUrl: 'not a url' }, SELF) ?? '', /client of another origin \(null\)/);
  });
});
