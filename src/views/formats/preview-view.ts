/** Templates for the mapping preview: every step as text (trace content is untrusted, never markup). */
import { html, nothing, type TemplateResult } from 'lit';
import type { MappingPreview, SampleRecords } from '../../ingest/mapping/preview';
import type { ChatMessage, StepRecord } from '../../contract/step';
import { toolErrorMark } from '../kit/tool-error';

const clip = (s: string | null | undefined, n = 600) => (s == null ? '' : s.length > n ? `${s.slice(0, n)}…` : s);

function messageLine(m: ChatMessage, cls = 'msg'): TemplateResult {
  const calls = m.tool_calls ?? [];
  return html`<li class=${cls}><span class="role">${m.role}</span>${m.tool_call_id ? html`<span class="muted">(${m.tool_call_id}) </span>` : nothing}${toolErrorMark(m)}<span class="content">${clip(m.content)}</span>
    ${calls.map((c) => html`<div class="call">→ <span class="tool-name">${c.function.name}</span>(<span class="mono">${clip(c.function.arguments, 300)}</span>)</div>`)}
  </li>`;
}

function stepView(s: StepRecord): TemplateResult {
  return html`<article class="step" aria-label=${`Step ${s.step_index} of ${s.trajectory_uid}`}>
    <header class="row">
      <span>trajectory <b class="trajectory-uid">${s.trajectory_uid}</b></span>
      <span>step <b class="step-index">${s.step_index}</b></span>
      <span>reward <b class="reward">${s.reward ?? '—'}</b></span>
      ${s.model ? html`<span class="muted">model ${s.model}</span>` : nothing}
      ${s.prompt_tokens != null || s.completion_tokens != null ? html`<span class="muted">tokens ${s.prompt_tokens ?? '?'} / ${s.completion_tokens ?? '?'}</span>` : nothing}
    </header>
    <ul class="messages" aria-label="Messages">${s.messages.map((m) => messageLine(m))}</ul>
    ${s.response ? html`<ul class="response" aria-label="Response">${messageLine(s.response, 'msg resp')}</ul>` : html`<div class="muted">no response</div>`}
  </article>`;
}

export function previewView(p: MappingPreview | null, sample: SampleRecords | null): TemplateResult {
  if (!sample) return html`<p class="muted">Pick a sample file to see what this mapping makes of its first records.</p>`;
  const head = html`${sample.warnings.map((w) => html`<div class="muted">⚠ ${w}</div>`)}
    ${sample.rejected.map((r) => html`<div class="error">line ${r.line}: ${r.reason}</div>`)}`;
  if (!sample.records.length) return html`${head}<p class="error">No records could be read from ${sample.file}.</p>`;
  if (!p || p.problems.length) return html`${head}<p class="muted">Fix the mapping's problems to see the preview of ${sample.records.length} record(s).</p>`;
  const steps = p.records.reduce((a, r) => a + r.steps.length, 0);
  return html`${head}
    <div class="row summary">
      <span>detect score <b class="score">${p.score.toFixed(2)}</b></span>
      <span>${p.winner ? html`detection picks <b class="winner">${p.winner.id}</b> (${Math.round(p.winner.confidence * 100)}%)` : nothing}</span>
      <span><b class="step-count">${steps}</b> step(s) from ${p.records.length} record(s)</span>
    </div>
    ${p.score === 0 ? html`<div class="error">The detect rule matches none of these records: check detect.required / detect.equals.</div>` : nothing}
    ${p.records.map(
      (r) => html`<section class="record" aria-label=${`Record ${r.index + 1} (line ${r.line})`}>
        <h3>record ${r.index + 1} <span class="muted">line ${r.line}</span></h3>
        ${r.error ? html`<div class="error record-error">${r.error}</div>` : nothing}
        ${r.steps.map(stepView)}
      </section>`,
    )}`;
}
