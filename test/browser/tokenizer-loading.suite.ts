// Issue 36 item 8: loading a tokenizer takes seconds (the bundled Qwen3); the panel says so with a progress bar,
// not only greyed buttons, and the bar goes when the profile is set.
import { expect } from '@esm-bundle/chai';
import type { TokenizerService } from '../../src/tokenizer/service';
import '../../src/views/tokenizer/aw-tokenizer-panel';
import { until } from './helpers';

describe('<aw-tokenizer-panel> while a tokenizer loads', () => {
  it('shows what is loading with a progress bar, then the profile', async () => {
    let finish: (v: unknown) => void = () => {};
    const service = {
      onState: () => () => {},
      info: () => null,
      set: () => new Promise((r) => (finish = r)),
      toolWarnings: async () => [],
      cancel: async () => {},
    } as unknown as TokenizerService;
    const panel = document.createElement('aw-tokenizer-panel');
    panel.service = service;
    document.body.append(panel);
    await panel.updateComplete;
    const button = [...panel.renderRoot.querySelectorAll('button')].find((b) => b.textContent?.includes('Qwen3')) as HTMLButtonElement;
    button.click();
    await until(() => !!panel.renderRoot.querySelector('progress[aria-label="Loading the tokenizer"]'), 'the loading bar');
    expect(panel.renderRoot.querySelector('[role="status"]')?.textContent).to.include('Loading the bundled Qwen3 tokenizer');
    expect(button.disabled).to.equal(true);
    finish({ name: 'Qwen3', vocabSize: 151_669, templateHash: 'abcdef0123456789' });
    await until(() => !panel.renderRoot.querySelector('progress[aria-label="Loading the tokenizer"]'), 'the bar gone');
    expect(panel.renderRoot.textContent).to.include('Using Qwen3');
    panel.remove();
  });
});
