/** <aw-sql-reference>: the built-in reference of the curation helpers every SQL cell can use. */
import { css, html, LitElement } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { CURATION_HELPERS, type SqlHelper } from '../../pool/curation-sql';
import { base } from '../kit/styles';

@customElement('aw-sql-reference')
export class AwSqlReference extends LitElement {
  @property({ attribute: false }) helpers: SqlHelper[] = CURATION_HELPERS;

  static override styles = [
    base,
    css`
    :host { display: block; font-size: 13px; line-height: 1.45; }
    dl { margin: 0; }
    dt { font: 600 12px var(--aw-mono); margin-top: 10px; }
    dt small { font-weight: 400; color: var(--aw-muted); margin-left: 6px; font-family: system-ui, sans-serif; }
    dd { margin: 2px 0 0 16px; }
    code { font: 12px var(--aw-mono); background: var(--aw-subtle); padding: 0 3px; }
  `,
  ];

  override render() {
    return html`<section aria-label="SQL curation helpers">
      <p>Created in every pool; use them in any SQL cell, e.g. <code>SELECT * FROM exact_duplicates WHERE dup_rank > 1</code>.
        Labels live in <code>curation</code> (step_id, quality, trainable, tags, note, split, reviewed_at).</p>
      <dl>${this.helpers.map((h) => html`<dt>${h.signature}<small>${h.kind ?? 'macro'}</small></dt><dd>${h.doc}</dd>`)}</dl>
    </section>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-sql-reference': AwSqlReference;
  }
}
