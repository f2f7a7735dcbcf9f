/**
 * <aw-sql-editor>: CodeMirror 6 with SQL highlighting and completion of the pool's table and column
 * names. Emits aw-input {value} on edits, aw-run {advance} on Shift+Enter (advance) / Mod+Enter,
 * aw-leave {dir} for Alt+Arrow or an arrow at the first / last line.
 */
import { autocompletion, closeBrackets, closeBracketsKeymap, closeCompletion, completionKeymap } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { type SQLNamespace, PostgreSQL, sql } from '@codemirror/lang-sql';
import { bracketMatching, defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { Compartment, EditorState, type Extension, StateEffect, StateField } from '@codemirror/state';
import { Decoration, type DecorationSet, EditorView, keymap, lineNumbers, placeholder } from '@codemirror/view';
import { css, LitElement, type PropertyValues } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { EDITOR_PLACEHOLDER } from './queries';

export type SqlSchema = Record<string, string[]>;

const setErrorLine = StateEffect.define<number | null>();
const errorLineDeco = Decoration.line({ class: 'aw-error-line' });
const errorField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(deco, tr) {
    deco = deco.map(tr.changes);
    for (const e of tr.effects) {
      if (!e.is(setErrorLine)) continue;
      const n = e.value;
      deco = n && n <= tr.state.doc.lines ? Decoration.set([errorLineDeco.range(tr.state.doc.line(n).from)]) : Decoration.none;
    }
    return deco;
  },
  provide: (f) => EditorView.decorations.from(f),
});

@customElement('aw-sql-editor')
export class AwSqlEditor extends LitElement {
  @property() value = '';
  @property({ attribute: false }) schema: SqlSchema = {};
  /** 'sql' or 'text' (YAML / Markdown sources get the editor without SQL). */
  @property() language: 'sql' | 'text' = 'sql';
  @property({ type: Boolean }) readonly = false;
  @property() label = 'SQL';
  /** 1-based line to mark as the error position. */
  @property({ type: Number }) errorLine: number | null = null;

  private view: EditorView | null = null;
  private langConf = new Compartment();
  private ro = new Compartment();

  static override styles = css`
    :host { display: block; border: 1px solid var(--aw-border); background: var(--aw-panel); }
    :host(:focus-within) { border-color: var(--aw-accent); }
    .cm-editor { font-size: 12.5px; max-height: 480px; }
    .cm-editor.cm-focused { outline: none; }
    .cm-scroller { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; line-height: 1.45; }
    .cm-gutters { background: var(--aw-subtle); color: var(--aw-muted); border-right: 1px solid var(--aw-subtle); }
    .cm-line.aw-error-line { background: var(--aw-error-bg); }
    /* CodeMirror's own grey placeholder is 3.5:1 on white (axe: color-contrast) */
    .cm-editor .cm-placeholder { color: var(--aw-muted); }
    /* Completion kind badges in plain letters: CodeMirror's own icons are an emoji key and math
       italics, which render as empty boxes without an emoji / math font (Debian's Chromium). */
    .cm-editor .cm-tooltip .cm-completionIcon { width: 14px; height: 14px; padding: 0; margin-right: 6px; opacity: 1; border-radius: 3px;
      font: 600 10px/14px ui-monospace, monospace; text-align: center; vertical-align: middle; color: var(--aw-panel); background: var(--aw-muted); }
    .cm-editor .cm-tooltip .cm-completionIcon::after { content: '?'; }
    .cm-editor .cm-tooltip .cm-completionIcon-keyword { background: var(--aw-json-key); }
    .cm-editor .cm-tooltip .cm-completionIcon-keyword::after { content: 'K'; }
    .cm-editor .cm-tooltip .cm-completionIcon-type { background: var(--aw-accent); }
    .cm-editor .cm-tooltip .cm-completionIcon-type::after { content: 'T'; }
    .cm-editor .cm-tooltip .cm-completionIcon-property { background: var(--aw-ok); }
    .cm-editor .cm-tooltip .cm-completionIcon-property::after { content: 'C'; }
    .cm-editor .cm-tooltip .cm-completionIcon-variable::after { content: 'v'; }
    .cm-editor .cm-tooltip .cm-completionIcon-function { background: var(--aw-warn); }
    .cm-editor .cm-tooltip .cm-completionIcon-function::after { content: 'f'; }
    .cm-editor .cm-tooltip .cm-completionIcon-constant::after { content: 'c'; }
    .cm-editor .cm-tooltip .cm-completionIcon-namespace { background: var(--aw-muted); }
    .cm-editor .cm-tooltip .cm-completionIcon-namespace::after { content: 'S'; }
    .cm-editor .cm-tooltip .cm-completionIcon-text::after { content: 'a'; font-size: inherit; vertical-align: baseline; }
  `;

  private langExt(): Extension {
    if (this.language !== 'sql') return [];
    const ns: SQLNamespace = {};
    for (const [t, cols] of Object.entries(this.schema)) ns[t] = cols;
    return sql({ dialect: PostgreSQL, schema: ns, upperCaseKeywords: true });
  }

  private emit(name: string, detail: unknown): void {
    this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }));
  }

  private run(advance: boolean): boolean {
    // The completion popup belongs to the text being typed, not to the result about to show.
    if (this.view) closeCompletion(this.view);
    this.emit('aw-run', { advance });
    return true;
  }

  private leave(dir: -1 | 1): boolean {
    this.emit('aw-leave', { dir });
    return true;
  }

  protected override firstUpdated(): void {
    const atBoundary = (dir: -1 | 1) => (v: EditorView) => {
      const sel = v.state.selection.main;
      if (!sel.empty) return false;
      const line = v.state.doc.lineAt(sel.head);
      if (dir < 0 ? line.number === 1 : line.number === v.state.doc.lines) return this.leave(dir);
      return false;
    };
    this.view = new EditorView({
      root: this.shadowRoot!,
      parent: this.shadowRoot!,
      state: EditorState.create({
        doc: this.value,
        extensions: [
          lineNumbers(),
          history(),
          bracketMatching(),
          closeBrackets(),
          autocompletion(),
          syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
          placeholder(this.language === 'sql' ? EDITOR_PLACEHOLDER : ''),
          keymap.of([
            { key: 'Shift-Enter', run: () => this.run(true) },
            { key: 'Mod-Enter', run: () => this.run(false) },
            { key: 'Alt-ArrowUp', run: () => this.leave(-1) },
            { key: 'Alt-ArrowDown', run: () => this.leave(1) },
            { key: 'ArrowUp', run: atBoundary(-1) },
            { key: 'ArrowDown', run: atBoundary(1) },
            ...closeBracketsKeymap,
            ...completionKeymap,
            ...historyKeymap,
            indentWithTab,
            ...defaultKeymap,
          ]),
          this.langConf.of(this.langExt()),
          this.ro.of(EditorState.readOnly.of(this.readonly)),
          EditorView.contentAttributes.of({ 'aria-label': this.label }),
          EditorView.lineWrapping,
          EditorView.updateListener.of((u) => {
            if (u.focusChanged && u.view.hasFocus) this.used = true;
            if (u.docChanged) {
              this.value = u.state.doc.toString();
              this.emit('aw-input', { value: this.value });
            }
          }),
          errorField,
        ],
      }),
    });
  }

  protected override updated(changed: PropertyValues<this>): void {
    const v = this.view;
    if (!v) return;
    if (changed.has('value') && v.state.doc.toString() !== this.value) {
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: this.value } });
    }
    if (changed.has('schema') || changed.has('language')) v.dispatch({ effects: this.langConf.reconfigure(this.langExt()) });
    if (changed.has('readonly')) v.dispatch({ effects: this.ro.reconfigure(EditorState.readOnly.of(this.readonly)) });
    if (changed.has('errorLine')) this.markError();
  }

  private markError(): void {
    this.view?.dispatch({ effects: setErrorLine.of(this.errorLine) });
  }

  override focus(opts?: FocusOptions & { at?: 'start' | 'end' }): void {
    const v = this.view;
    if (!v) {
      // Not rendered yet (a cell just added): focus the editor once it exists.
      if (this.isConnected) void this.updateComplete.then(() => this.view && this.focus(opts));
      return;
    }
    v.focus();
    if (opts?.at) v.dispatch({ selection: { anchor: opts.at === 'start' ? 0 : v.state.doc.length } });
  }

  /** Insert text at the cursor (at the end if the editor was never used) and focus the editor. */
  insert(text: string): void {
    const v = this.view;
    if (!v) return;
    if (!this.used) v.dispatch({ selection: { anchor: v.state.doc.length } });
    const before = v.state.sliceDoc(v.state.selection.main.from - 1, v.state.selection.main.from);
    v.dispatch(v.state.replaceSelection(before && !/\s|\(|\./.test(before) ? ` ${text}` : text));
    v.focus();
  }

  /** The user has put the cursor somewhere (insert() then goes there rather than to the end). */
  private used = false;

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.view?.destroy();
    this.view = null;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    if (this.hasUpdated && !this.view) this.firstUpdated();
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-sql-editor': AwSqlEditor;
  }
}
