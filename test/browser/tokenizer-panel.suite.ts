/**
 * <aw-tokenizer-panel>: bad tokenizer files answered with what is wrong (the previous profile stays), and a template
 * without tool support over a pool with tool calls said up front. (Audit, progress, inspector: tokenizer-audit.suite.ts.)
 */
import { expect } from '@esm-bundle/chai';
import type { PoolClient } from '../../src/pool/client';
import type { TokenizerService } from '../../src/tokenizer/service';
import '../../src/views/tokenizer/aw-tokenizer-panel';
import type { AwTokenizerPanel } from '../../src/views/tokenizer/aw-tokenizer-panel';
import { MODEL, mountTokenizerPanel, tokenizerPool, } from './tokenizer-helpers';

describe('<aw-tokenizer-panel>: choosing a profile', function () {
  this.timeout(300_000);
  let pool: PoolClient;
  let svc: TokenizerService;
  let panel: AwTokenizerPanel;
  let unmount: () => Promise<void>;
  let config: Record<string, unknown>;

  before(async () => {
    pool = await tokenizerPool();
    config = await (await fetch(`${MODEL}/tokenizer_config.json`)).json();
    ({ svc, panel, unmount } = mountTokenizerPanel(pool));
  });
  after(() => unmount());

  const alert = () => panel.shadowRoot?.querySelector('[role=alert]')?.textContent ?? '';
  // a small word-level tokenizer: what matters here is the profile's checks and the template, not the bundled Qwen3 (a
  // worker's load of its 11 MB tokenizer.json; choosing it from the panel: tokenizer-audit.suite.ts, -loading.suite.ts)
  const wordLevel = { model: { type: 'WordLevel', vocab: { '[UNK]': 0, hello: 1 }, unk_token: '[UNK]' }, pre_tokenizer: { type: 'Whitespace' }, decoder: { type: 'WordPiece', prefix: '##', cleanup: true }, added_tokens: [], normalizer: null, post_processor: null };
  const imTemplate = '{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}';
  // renders tools: the next test's profile (this template alone) is the switch to one that does not
  const toolsTemplate = `{% if tools %}{{ tools | length }} tools\n{% endif %}${imTemplate}`;

  it('bad files: the message names what is wrong and the previous profile stays', async () => {
    await panel.choose({ tokenizer: wordLevel, config: { model_max_length: 4096 }, template: toolsTemplate, name: 'word-level' });
    const before = svc.info();
    expect([before?.name, before?.toolSupport]).to.deep.equal(['word-level', true]);
    await panel.choose({ tokenizer: new File(['{"model": {"type": "BPE", "vocab": '], 'tokenizer.json'), config: new File([JSON.stringify(config)], 'tokenizer_config.json') });
    await panel.updateComplete;
    expect(alert()).to.match(/tokenizer\.json is not valid JSON/);
    expect(alert()).to.match(/still using word-level\./);
    await panel.choose({ tokenizer: { model: { type: 'FancyNet', vocab: {} } }, config });
    await panel.updateComplete;
    expect(alert()).to.match(/unsupported model type "FancyNet"/);
    await panel.choose({ tokenizer: { model: { type: 'BPE', vocab: {}, merges: [] } }, config: { chat_template: '{% for m in messages %}' } });
    await panel.updateComplete;
    expect(alert()).to.match(/chat template does not parse/);
    await panel.choose({ tokenizer: { model: { type: 'BPE', vocab: {}, merges: [] } }, config: '[1, 2' });
    await panel.updateComplete;
    expect(alert()).to.match(/tokenizer_config\.json is not valid JSON/);
    expect(svc.info()).to.deep.equal(before);
  });

  it('a template without tool support on a pool with tool calls is said up front', async () => {
    // the template never reads `tools`
    await panel.choose({ tokenizer: wordLevel, config: { model_max_length: 4096 }, template: imTemplate, name: 'no-tools' });
    await panel.updateComplete;
    expect(alert()).to.equal('');
    const [{ n }] = await pool.rows(
      "SELECT count(*)::INTEGER AS n FROM steps WHERE (tools IS NOT NULL AND trim(tools) NOT IN ('', '[]')) OR coalesce(list_bool_or(list_transform(messages, m -> coalesce(len(m.tool_calls), 0) > 0)), false)",
    );
    expect(n as number).to.be.greaterThan(0);
    const note = panel.shadowRoot?.querySelector('.warn')?.textContent ?? '';
    expect(note).to.contain(`does not render tools, and ${n} conversation(s)`);
    expect(svc.info()?.toolSupport).to.equal(false);
  });

});
