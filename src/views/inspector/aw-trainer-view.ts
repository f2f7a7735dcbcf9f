/**
 * "As the trainer sees it": a step's conversation rendered with the active tokenizer profile's chat template
 * — the rendered text (as text), the trained (assistant-mask) tokens highlighted, each token's id on hover,
 * the counts, and a warning where the rendering lost what the messages have or the template raised.
 * Include in the inspector with `<aw-trainer-view .stepId=${step.step_id}></aw-trainer-view>`.
 */
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { activeTokenizer, type TokenizerService } from '../../tokenizer/service';
import type { RenderedStep } from '../../tokenizer/api';

@customElement('aw-trainer-view')
export class AwTrainerView extends LitElement {
  @property({ attribute: false }) stepId: string | null = null;
  /** Defaults to the page's tokenizer service. */
  @property({ attribute: false }) service: TokenizerService | null = null;
  @state() private result: RenderedStep | null = null;
  @state() private status: 'idle' | 'loading' | 'no-profile' | 'no-step' | 'error' | 'done' = 'idle';
  @state() private message = '';
  private seq = 0;

  static override styles = css`
    :host { display: block; font: 13px/1.45 system-ui, sans-serif; }
    .counts { margin: 4px 0 8px; color: var(--aw-muted); }
    .warn { margin: 4px 0; padding: 4px 8px; border-left: 4px solid var(--aw-warn-border); background: var(--aw-warn-bg); }
    .err { border-left-color: var(--aw-error); background: var(--aw-error-bg); }
    pre { white-space: pre-wrap; word-break: break-word; font: 12px/1.5 ui-monospace, monospace; margin: 0; padding: 8px; border: 1px solid var(--aw-border); border-radius: 6px; background: var(--aw-panel); }
    pre:hover .t { box-shadow: inset -1px 0 var(--aw-muted); }
    .t:hover { outline: 1px solid var(--aw-accent); }
    .t.trained { background: var(--aw-ok-bg); }
    .legend .trained { background: var(--aw-ok-bg); padding: 0 4px; }
  `;

  protected override updated(changed: PropertyValues<this>): void {
    if (changed.has('stepId') || changed.has('service')) void this.load();
  }

  /** Render again (e.g. after the profile changed). */
  async load(): Promise<void> {
    const svc = this.service ?? activeTokenizer();
    const me = ++this.seq;
    if (!this.stepId) return;
    if (!svc?.info()) {
      this.status = 'no-profile';
      return;
    }
    this.status = 'loading';
    try {
      const r = await svc.renderStepById(this.stepId);
      if (me !== this.seq) return;
      this.result = r;
      this.status = r ? 'done' : 'no-step';
    } catch (e) {
      if (me !== this.seq) return;
      this.status = 'error';
      this.message = e instanceof Error ? e.message : String(e);
    }
  }

  private warnings(r: RenderedStep): string[] {
    const w: string[] = [];
    const { lost } = r;
    if (lost.reasoning) w.push(`The template drops the reasoning of ${lost.reasoning} assistant message(s): not trained on.`);
    if (lost.toolCalls) w.push(`${lost.toolCalls} tool call(s) are not in the rendering.`);
    if (lost.toolResults) w.push(`${lost.toolResults} tool result(s) are not in the rendering.`);
    if (lost.content) w.push(`The content of ${lost.content} message(s) is not in the rendering.`);
    if (!r.maskSource) w.push('The trained tokens cannot be derived for this tokenizer / template.');
    if (!r.profile.toolSupport && r.hasTools) w.push(`The chat template of ${r.profile.name} does not render tools: the tool definitions are not in the text.`);
    return w;
  }

  override render() {
    switch (this.status) {
      case 'idle':
        return nothing;
      case 'no-profile':
        return html`<p class="counts">No tokenizer is set: choose one under "As the trainer sees it" on the dashboard (or <code>workbench.setTokenizer(…)</code>).</p>`;
      case 'loading':
        return html`<p class="counts">Rendering…</p>`;
      case 'no-step':
        return html`<p class="counts">This step is not in the pool.</p>`;
      case 'error':
        return html`<p class="warn err">${this.message}</p>`;
    }
    const r = this.result as RenderedStep;
    if (r.error) return html`<p class="warn err" role="alert">The chat template raised: ${r.error}. A trainer skips or crashes on this row.</p>`;
    if (r.profile.countingOnly) {
      return html`
        <p class="counts">${r.nTokens} tokens · ${r.profile.name}</p>
        <p class="warn" role="note">Counting only: ${r.profile.name} has no chat template; the text below is ${r.profile.rendering}. Trained tokens and content lost by a template are not known for it.</p>
        <pre>${r.text}</pre>`;
    }
    return html`
      <p class="counts">${r.nTokens} tokens, ${r.nTrained} trained (assistant) · ${r.profile.name} · mask from ${r.maskSource === 'generation' ? '{% generation %} blocks' : 'assistant turns'}
        <span class="legend"> · <span class="trained">trained</span></span></p>
      ${this.warnings(r).map((w) => html`<p class="warn" role="status">${w}</p>`)}
      <pre>${
        r.pieces
          ? r.pieces.map((p) => html`<span class=${p.trained ? 't trained' : 't'} title=${`token ${p.ids.join(', ')}`}>${p.text}</span>`)
          : r.text
      }</pre>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'aw-trainer-view': AwTrainerView;
  }
}
