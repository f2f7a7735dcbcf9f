/**
 * The gateway's route table (src/gateway/core/routes.ts): every path below the page's base and method → the route, the
 * trajectory and prompt ids a scoped path carries (URL-decoded), and the reason a path is refused, word for word (the
 * agent sees it). Pure, so Stryker can run it for every mutant of the table.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRoute } from '../../src/gateway/core/routes';

const SCOPE = 'expected /gateway/v1/... or /gateway/{trajectory_uid}/{prompt_uid}/v1/...';
const NONE = 'no gateway route for v1/%s; supported: chat/completions, responses, messages, models, register_trajectory, complete_trajectory';

describe('gateway routes', () => {
  it('the three APIs, unscoped and scoped (ids URL-decoded), POST only', () => {
    assert.deepEqual(parseRoute('gateway/v1/chat/completions', 'POST'), { type: 'api', api: 'chat', trajectory_uid: null, prompt_uid: null, path: 'chat/completions' });
    assert.deepEqual(parseRoute('/gateway/v1/responses/', 'POST'), { type: 'api', api: 'responses', trajectory_uid: null, prompt_uid: null, path: 'responses' });
    assert.deepEqual(parseRoute('gateway//t%201/p@2//v1/messages', 'POST'), { type: 'api', api: 'messages', trajectory_uid: 't 1', prompt_uid: 'p@2', path: 'messages' });
    assert.deepEqual(parseRoute('gateway/v1/messages', 'GET'), { type: 'unknown', reason: 'messages takes POST' });
  });

  it('init_trajectory: POST at the top only', () => {
    assert.deepEqual(parseRoute('gateway/init_trajectory', 'POST'), { type: 'init' });
    assert.deepEqual(parseRoute('gateway/init_trajectory', 'GET'), { type: 'unknown', reason: 'init_trajectory takes POST' });
    // under a scope it is no lifecycle path; with more segments it is no scope either
    assert.deepEqual(parseRoute('gateway/t/p/v1/init_trajectory', 'POST'), { type: 'unknown', reason: NONE.replace('%s', 'init_trajectory') });
    assert.deepEqual(parseRoute('gateway/init_trajectory/x', 'POST'), { type: 'unknown', reason: SCOPE });
    assert.deepEqual(parseRoute('gateway/v1', 'POST'), { type: 'unknown', reason: NONE.replace('%s', '') });
  });

  it('register and complete: POST, under a trajectory only', () => {
    assert.deepEqual(parseRoute('gateway/t1/p1/v1/register_trajectory', 'POST'), { type: 'register', trajectory_uid: 't1', prompt_uid: 'p1' });
    assert.deepEqual(parseRoute('gateway/t1/p1/v1/complete_trajectory', 'POST'), { type: 'complete', trajectory_uid: 't1', prompt_uid: 'p1' });
    assert.deepEqual(parseRoute('gateway/t1/p1/v1/complete_trajectory', 'GET'), { type: 'unknown', reason: 'complete_trajectory takes POST' });
    assert.deepEqual(parseRoute('gateway/v1/register_trajectory', 'POST'), {
      type: 'unknown',
      reason: 'register_trajectory needs a trajectory: call it under /gateway/{trajectory_uid}/{prompt_uid}/v1/ (see init_trajectory)',
    });
  });

  it('models pass through, any method; anything else is named with what is supported', () => {
    assert.deepEqual(parseRoute('gateway/v1/models', 'GET'), { type: 'passthrough', trajectory_uid: null, prompt_uid: null, path: 'models' });
    assert.deepEqual(parseRoute('gateway/t/p/v1/models/gpt-4o', 'GET'), { type: 'passthrough', trajectory_uid: 't', prompt_uid: 'p', path: 'models/gpt-4o' });
    assert.deepEqual(parseRoute('gateway/v1/modelsx', 'GET'), { type: 'unknown', reason: NONE.replace('%s', 'modelsx') });
    assert.deepEqual(parseRoute('gateway/v1/my/models', 'GET'), { type: 'unknown', reason: NONE.replace('%s', 'my/models') });
    assert.deepEqual(parseRoute('gateway/v1/embeddings', 'POST'), { type: 'unknown', reason: NONE.replace('%s', 'embeddings') });
  });

  it('a path outside the gateway, a scope without v1, or ids with other characters or too long are refused', () => {
    assert.deepEqual(parseRoute('api/v1/chat/completions', 'POST'), { type: 'unknown', reason: 'not a gateway path' });
    assert.deepEqual(parseRoute('x/gateway/v1/chat/completions', 'POST'), { type: 'unknown', reason: 'not a gateway path' });
    assert.deepEqual(parseRoute('gateway/t/p/v2/chat/completions', 'POST'), { type: 'unknown', reason: SCOPE });
    assert.deepEqual(parseRoute('gateway/t/v1/chat/completions', 'POST'), { type: 'unknown', reason: SCOPE });
    for (const [t, p] of [['t<1', 'p'], ['t', 'p"2'], ['a'.repeat(301), 'p'], ['t', 'b'.repeat(301)], ['t b', 'p']]) {
      assert.deepEqual(parseRoute(`gateway/${t}/${p}/v1/chat/completions`, 'POST'), { type: 'unknown', reason: SCOPE }, `${t.slice(0, 9)} ${p.slice(0, 9)}`);
    }
    // the whole id must match, not a part of it
    assert.deepEqual(parseRoute('gateway/<t/p/v1/chat/completions', 'POST'), { type: 'unknown', reason: SCOPE });
    assert.deepEqual(parseRoute('gateway/t>/p/v1/chat/completions', 'POST'), { type: 'unknown', reason: SCOPE });
    assert.equal(parseRoute(`gateway/${'a'.repeat(300)}/p/v1/chat/completions`, 'POST').type, 'api');
  });
});
