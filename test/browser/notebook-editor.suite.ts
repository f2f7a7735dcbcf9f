/**
 * Issue 15: the SQL editor's completion popup shows its kind icons (CodeMirror's theme lives in the
 * editor's shadow root) and closes when the cell runs.
 */
import { expect } from '@esm-bundle/chai';
import { sendKeys } from '@web/test-runner-commands';
import '../../src/views/notebook/aw-sql-editor';
import type { AwSqlEditor } from '../../src/views/notebook/aw-sql-editor';
import { until } from './helpers';

describe('SQL editor completion', function () {
  this.timeout(20_000);
  let ed: AwSqlEditor;
  const root = () => ed.shadowRoot!;
  const popup = () => root().querySelector('.cm-tooltip-autocomplete');

  beforeEach(async () => {
    ed = document.createElement('aw-sql-editor');
    ed.schema = { steps: ['step_id', 'started_at', 'reward'], trajectories: ['trajectory_uid'] };
    document.body.append(ed);
    await ed.updateComplete;
    ed.focus();
  });
  afterEach(() => ed.remove());

  it('the popup lists tables and keywords, each with a visible kind icon', async () => {
    await sendKeys({ type: 'SELECT * FROM st' });
    await sendKeys({ press: 'Control+Space' });
    // the popup opens while typing and CodeMirror fills it in asynchronously: until it shows the completions of
    // the whole prefix `st` it may list an earlier prefix's (seen under load: two labels, no `steps`)
    const labels = () => [...(popup()?.querySelectorAll('.cm-completionLabel') ?? [])].map((e) => e.textContent);
    await until(() => labels().includes('steps'), 'the completion popup listing the table steps', 200);
    const icons = [...popup()!.querySelectorAll('.cm-completionIcon')] as HTMLElement[];
    expect(icons.length).to.be.greaterThan(0);
    const kinds = new Map<string, string>();
    for (const icon of icons) {
      // plain letters: CodeMirror's default emoji / math-italic glyphs draw as empty boxes without those fonts
      const after = getComputedStyle(icon, '::after').content;
      expect(after, `icon ${icon.className}`).to.match(/^"[A-Za-z]"$/);
      expect(icon.getBoundingClientRect().width, `icon ${icon.className} width`).to.be.greaterThan(8);
      kinds.set(icon.className, after);
    }
    // tables and keywords are told apart
    expect(kinds.get('cm-completionIcon cm-completionIcon-type')).to.not.equal(kinds.get('cm-completionIcon cm-completionIcon-keyword'));
  });

  it('Ctrl+Enter runs the cell and closes the popup', async () => {
    let runs = 0;
    ed.addEventListener('aw-run', () => runs++);
    await sendKeys({ type: 'SELECT * FROM st' });
    await sendKeys({ press: 'Control+Space' });
    await until(() => !!popup()?.querySelector('li'), 'the completion popup', 100);
    await sendKeys({ press: 'Control+Enter' });
    expect(runs).to.equal(1);
    await new Promise((r) => setTimeout(r, 200));
    expect(!!popup(), 'popup closed after run').to.equal(false);
    expect(ed.value).to.equal('SELECT * FROM st');
  });

  it('Shift+Enter with the popup open runs too, and closes it', async () => {
    let runs = 0;
    ed.addEventListener('aw-run', () => runs++);
    await sendKeys({ type: 'SELECT reward FROM steps WHERE rew' });
    await sendKeys({ press: 'Control+Space' });
    await until(() => !!popup()?.querySelector('li'), 'the completion popup', 100);
    await sendKeys({ press: 'Shift+Enter' });
    expect(runs).to.equal(1);
    await new Promise((r) => setTimeout(r, 200));
    expect(!!popup()).to.equal(false);
  });
});
