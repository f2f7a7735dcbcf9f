import { css, html, LitElement } from 'lit';
import { customElement } from 'lit/decorators.js';
import { base } from '../views/kit/styles';

/** Every keyboard shortcut of the workbench, by where it works. Keep in step with the key handlers. */
export const SHORTCUTS: { area: string; keys: [string, string][] }[] = [
  {
    area: 'Anywhere',
    keys: [
      ['?', 'show this list of shortcuts'],
      ['Esc', 'close the open dialog'],
      ['Tab / Shift+Tab', 'move between controls'],
    ],
  },
  {
    area: 'Section tabs (and the dashboard’s view tabs)',
    keys: [
      ['← / →', 'previous / next tab'],
      ['Home / End', 'first / last tab'],
    ],
  },
  {
    area: 'Trajectory list',
    keys: [['Enter / Space', 'open the focused trajectory in the inspector']],
  },
  {
    area: 'Step inspector',
    keys: [
      ['j / ↓, k / ↑', 'next / previous step'],
      ['] / [', 'next / previous trajectory'],
      ['← / → on its view tabs', 'Conversation, Timeline, Compare rollouts'],
    ],
  },
  {
    area: 'Gateway: captured calls',
    keys: [['Enter / Space', 'open the focused call in the inspector']],
  },
  {
    area: 'Review queue',
    keys: [
      ['g / b', 'label good / bad and go to the next'],
      ['t', 'toggle trainable'],
      ['u', 'undo the last label'],
      ['n / p', 'next / previous trajectory'],
    ],
  },
  {
    area: 'Notebook',
    keys: [
      ['Shift+Enter', 'run the cell and go to the next'],
      ['Ctrl/⌘+Enter', 'run the cell'],
      ['Alt+Enter', 'run the cell and add a new one below'],
      ['Alt+Shift+B / A', 'add a SQL cell below / above'],
      ['Alt+Shift+M', 'add a Markdown cell below'],
      ['Alt+Shift+↑ / ↓', 'move the cell up / down'],
      ['Alt+Shift+D', 'duplicate the cell'],
      ['Alt+Shift+Backspace', 'delete the cell'],
      ['Alt+Shift+Z', 'bring the last deleted cell back'],
      ['Alt+↑ / ↓', 'previous / next cell'],
      ['Enter', 'edit a Markdown cell'],
      ['↑ / ↓', 'previous / next cell (outside the editor)'],
    ],
  },
];

/** <aw-shortcuts>: the on-screen shortcut sheet, a modal dialog (Esc closes it). */
@customElement('aw-shortcuts')
export class AwShortcuts extends LitElement {
  static override styles = [
    base,
    css`
      dialog { border: 1px solid var(--aw-border); border-radius: var(--aw-radius); padding: 16px 18px; max-width: min(560px, calc(100vw - 48px)); max-height: calc(100vh - 64px); overflow: auto; background: var(--aw-panel); color: var(--aw-text); }
      dialog::backdrop { background: rgb(0 0 0 / 0.25); }
      dl { display: grid; grid-template-columns: max-content 1fr; gap: 3px 14px; margin: 0 0 10px; }
      dt { font-family: var(--aw-mono); font-size: 12.5px; white-space: nowrap; }
      dd { margin: 0; }
      kbd { font-family: var(--aw-mono); border: 1px solid var(--aw-border); border-radius: 4px; padding: 0 4px; background: var(--aw-bg); }
      .head { display: flex; align-items: center; justify-content: space-between; gap: 12px; }
    `,
  ];

  private get dialog(): HTMLDialogElement {
    return this.renderRoot.querySelector('dialog') as HTMLDialogElement;
  }

  get isOpen(): boolean {
    return this.dialog?.open ?? false;
  }

  show(): void {
    if (!this.dialog.open) this.dialog.showModal();
  }

  close(): void {
    this.dialog.close();
  }

  override render() {
    return html`<dialog aria-labelledby="shortcuts-title">
      <div class="head">
        <h2 id="shortcuts-title">Keyboard shortcuts</h2>
        <button aria-label="Close the shortcut list" @click=${() => this.close()}>Close</button>
      </div>
      ${SHORTCUTS.map(
        (g) => html`<h3>${g.area}</h3>
          <dl>${g.keys.map(([k, what]) => html`<dt><kbd>${k}</kbd></dt><dd>${what}</dd>`)}</dl>`,
      )}
    </dialog>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-shortcuts': AwShortcuts;
  }
}
