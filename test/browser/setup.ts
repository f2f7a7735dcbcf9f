/**
 * Loaded before every browser test file (web-test-runner.config.mjs `testRunnerHtml`).
 *
 * A failed chai assertion keeps its `actual` and `expected` values, and web-test-runner sends them to the terminal as
 * JSON. An element there (say `expect(el.querySelector('.err')).to.equal(null)` when an error is shown) has circular
 * properties: the message could not be sent and the whole file hung until its 10-minute limit, with no result at all.
 * A DOM node is sent as its markup instead, cut to a readable length.
 */
import { Assertion, AssertionError } from '@esm-bundle/chai';

function readable(v: unknown): unknown {
  if (!(v instanceof Node)) return v;
  const text = v instanceof Element ? v.outerHTML : (v.textContent ?? v.nodeName);
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

const assert = Assertion.prototype.assert;
Assertion.prototype.assert = function (this: unknown, ...args: Parameters<typeof assert>) {
  try {
    return assert.apply(this, args);
  } catch (e) {
    if (e instanceof AssertionError) {
      const err = e as { actual?: unknown; expected?: unknown };
      err.actual = readable(err.actual);
      err.expected = readable(err.expected);
    }
    throw e;
  }
};
