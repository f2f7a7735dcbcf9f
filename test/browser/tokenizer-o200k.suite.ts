/**
 * The OpenAI o200k_base counting profile in the page: chosen from the panel, token_counts filled with counts and
 * unknown (null) audit flags, the audit and the inspector say counting only, an export with tokens is refused,
 * and the choice survives a reload (restore).
 */
import { expect } from '@esm-bundle/chai';
import { openDB } from 'idb';
import type { PoolClient } from '../../src/pool/client';
import type { TokenizerService } from '../../src/tokenizer/service';
import '../../src/views/tokenizer/aw-tokenizer-panel';
import '../../src/views/inspector/aw-trainer-view';
import type { AwTokenizerPanel } from '../../src/views/tokenizer/aw-tokenizer-panel';
import { mountTokenizerPanel, tokenizerPool, tokenizerService } from './tokenizer-helpers';

describe('OpenAI o200k_base (counting only)', function () {
  this.timeout(300_000);
  let pool: PoolClient;
  let svc: TokenizerService;
  let panel: AwTokenizerPanel;
  let unmount: () => Promise<void>;

  before(async () => {
    pool = await tokenizerPool();
    ({ svc, panel, unmount } = mountTokenizerPanel(pool));
  });
  after(() => unmount());

  it('chosen from the panel: counts in token_counts, audit flags null, audit and inspector say counting only', async () => {
    await panel.updateComplete;
    const button = [...(panel.shadowRoot?.querySelectorAll('button') ?? [])].find((b) => /o200k_base/.test(b.textContent ?? ''));
    expect(button, 'the o200k button').to.exist;
    button?.click();
    for (let i = 0; i < 600 && svc.info()?.countingOnly !== true; i++) await new Promise((r) => setTimeout(r, 100));
    expect(svc.info()?.name).to.match(/o200k_base/);
    expect(svc.info()?.vocabSize).to.be.greaterThan(200_000);
    await svc.whenCounted();
    const [c] = await pool.rows(
      'SELECT count(*)::INTEGER AS n, count(n_tokens)::INTEGER AS counted, count(lost_reasoning)::INTEGER AS flagged, (SELECT count(*)::INTEGER FROM steps) AS steps FROM token_counts',
    );
    expect(c?.n).to.equal(c?.steps);
    expect(c?.counted).to.equal(c?.steps);
    expect(c?.flagged).to.equal(0);
    for (let i = 0; i < 100 && !/unavailable/.test(panel.shadowRoot?.textContent ?? ''); i++) await new Promise((r) => setTimeout(r, 100));
    expect(panel.shadowRoot?.querySelector('[aria-label="Template audit"]')?.textContent).to.match(/unavailable: OpenAI o200k_base .* has no chat template/);

    const [step] = await pool.rows('SELECT s.step_id, t.n_tokens FROM steps s JOIN token_counts t USING (step_id) ORDER BY s.step_id LIMIT 1');
    const view = document.createElement('aw-trainer-view');
    view.service = svc;
    view.stepId = String(step?.step_id);
    document.body.append(view);
    for (let i = 0; i < 300 && !/Counting only/.test(view.shadowRoot?.textContent ?? ''); i++) await new Promise((r) => setTimeout(r, 100));
    expect(view.shadowRoot?.textContent).to.match(/Counting only/);
    expect(view.shadowRoot?.textContent).to.not.match(/trained \(assistant\)/);
    view.remove();
  });

  it('an export with tokens is refused with the reason', async () => {
    let err = '';
    await svc.planExport('SELECT 1 AS id, NULL AS messages, NULL AS tools', 'id', { maxTokens: null }).catch((e: Error) => {
      err = e.message;
    });
    expect(err).to.match(/no chat template: it counts tokens only/);
  });

  it('the choice persists: a new service restores o200k_base', async () => {
    const again = tokenizerService(pool);
    await again.restore();
    expect(again.info()?.countingOnly).to.equal(true);
    expect(again.info()?.name).to.match(/o200k_base/);
  });

  it('a use whose tab is gone counts as unfinished; one running now in another tab does not', async () => {
    // the services of this page (their background counts) are idle first: no use lock held
    const idle = async (but = '') => {
      const busy = async () => ((await navigator.locks.query()).held ?? []).some((l) => l.name?.startsWith('agentworld-tokenizer-use-') && l.name !== but);
      for (let i = 0; i < 600 && (await busy()); i++) await new Promise((r) => setTimeout(r, 50));
    };
    const store = await openDB('aw-tokenizer', 1);
    const active = await store.get('profile', 'active');
    // a tab closed mid-count: its mark stays, its lock is gone
    await idle();
    await store.put('profile', { key: 'busy:gone-tab', what: 'a token count', since: Date.now(), owner: 'gone-tab' });
    let refused = '';
    await tokenizerService(pool).restore().catch((e: Error) => (refused = e.message));
    expect(refused).to.match(/was not restored: its last use \(a token count\) did not finish/);
    // another tab counting now: its mark, and its Web Lock held
    await store.put('profile', active);
    await store.put('profile', { key: 'busy:other-tab', what: 'a token count', since: Date.now(), owner: 'other-tab' });
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    await new Promise<void>((granted) => {
      void navigator.locks.request('agentworld-tokenizer-use-other-tab', () => {
        granted();
        return held;
      });
    });
    const beside = tokenizerService(pool);
    await beside.restore();
    expect(beside.info()?.name, 'restored beside a running use').to.match(/o200k_base/);
    // a use of this service ends while the other tab's runs: the other tab's mark stays
    await beside.renderStep({ messages: [{ role: 'user', content: 'hi' }], response: null, tools: null }).catch(() => null);
    await idle('agentworld-tokenizer-use-other-tab'); // and its background count, if any
    expect(await store.get('profile', 'busy:other-tab'), "the other tab's mark").to.not.equal(undefined);
    release();
    store.close();
  });
});
