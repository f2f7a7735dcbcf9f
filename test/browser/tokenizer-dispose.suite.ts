/**
 * TokenizerService.dispose: a service whose count hangs (a pre-tokenizer regex that backtracks without end, as in
 * hostile-payloads) is ended: the count settles as stopped, every worker it started is terminated, its Web Lock and
 * use mark are gone, a later change of the pool's steps starts nothing, and a later use is refused. Without it a
 * service counts on its pool's changes until the page ends (the suites of tokenizer.test.ts share one pool).
 */
import { expect } from '@esm-bundle/chai';
import { openDB } from 'idb';
import type { PoolClient } from '../../src/pool/client';
import { activeTokenizer, countWorkers, setActiveTokenizer } from '../../src/tokenizer/service';
import { until } from './helpers';
import { disposeServices, tokenizerPool, tokenizerService, worker } from './tokenizer-helpers';

/** A tokenizer whose pre-tokenizer regex backtracks without end on any text of 30+ characters (2^n paths). */
const backtracking = {
  tokenizer: { version: '1.0', added_tokens: [], normalizer: null, pre_tokenizer: { type: 'Split', pattern: { Regex: '([\\s\\S]+)+!' }, behavior: 'Isolated', invert: false }, post_processor: null, decoder: null, model: { type: 'WordLevel', vocab: { '[UNK]': 0, a: 1 }, unk_token: '[UNK]' } },
  config: { tokenizer_class: 'PreTrainedTokenizerFast', chat_template: '{% for m in messages %}{{ m.role }}: {{ m.content }} {% endfor %}' },
  name: 'backtracking',
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const useLocks = async () => ((await navigator.locks.query()).held ?? []).filter((l) => l.name?.startsWith('agentworld-tokenizer-use-')).length;

describe('TokenizerService.dispose', function () {
  this.timeout(120_000);
  let pool: PoolClient;

  before(async () => {
    pool = await tokenizerPool();
  });
  after(() => disposeServices());

  it('ends a hung count, terminates its workers, leaves no lock or mark, and starts nothing on later changes', async () => {
    let made = 0;
    let terminated = 0;
    const svc = tokenizerService(pool, () => {
      made++;
      const w = worker();
      const end = w.terminate.bind(w);
      w.terminate = () => {
        terminated++;
        end();
      };
      return w;
    });
    setActiveTokenizer(svc);
    // every counting worker (the pool is far under BYTES_PER_HELPER: helpers start only at a threshold this low), so
    // the helpers' termination is checked too
    svc.bytesPerHelper = 1;
    await svc.set(backtracking);
    // the count starts by itself and never ends: its workers are stuck in the regex
    const run = svc.whenCounted();
    await until(() => made === countWorkers() && svc.state().counting, 'every counting worker started', 600);
    expect(await useLocks(), 'the running use holds its lock').to.equal(1);

    await svc.dispose();
    expect(await Promise.race([run, sleep(20_000).then(() => 'still counting')])).to.equal(null);
    expect(terminated, 'every worker terminated').to.equal(made);
    expect(await useLocks(), 'no use lock held').to.equal(0);
    const d = await openDB('aw-tokenizer', 1);
    expect((await d.getAllKeys('profile')).filter((k) => String(k).startsWith('busy')), 'no use mark').to.deep.equal([]);
    d.close();
    expect(activeTokenizer(), 'no longer the active service').to.equal(null);

    // the pool's steps change: a live service would count again a second later
    const started = made;
    await pool.exec(`UPDATE steps SET messages = list_append(messages, {'role': 'user', 'content': 'one more', 'reasoning': NULL, 'name': NULL, 'tool_call_id': NULL, 'tool_calls': NULL, 'parts': NULL}) WHERE step_id = (SELECT min(step_id) FROM steps)`);
    await sleep(1_500);
    expect(made, 'no worker started after the change').to.equal(started);
    expect(await useLocks()).to.equal(0);
    let err = '';
    await svc.set({ bundled: 'qwen3' }).catch((e: Error) => (err = e.message));
    expect(err).to.match(/disposed/);
    expect(made, 'no worker started for a use after dispose').to.equal(started);
  });
});
