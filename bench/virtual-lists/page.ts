/**
 * Measurement page for `bench/virtual-lists.mjs` (issue 14: "@lit-labs/virtualizer instead of the two hand-written
 * virtual lists if it measures as smooth at 1 M rows"). Not part of `npm test` and not type-checked with the tree:
 * it imports @lit-labs/virtualizer, which the project does not depend on (copy the package into node_modules to run).
 *
 * `?impl=` picks one list: `aw-table` / `aw-trajectory-list` (ours, src/views) or `vl-table` / `vl-trajectories`
 * (the same rows, cells and CSS rendered through the virtualizer's `virtualize` directive). The page builds a
 * synthetic Arrow table of `?rows=` rows and exposes `window.vbench` for the driver.
 */
import { virtualize } from '@lit-labs/virtualizer/virtualize.js';
import { type Table, tableFromArrays } from 'apache-arrow';
import { css, html, LitElement, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { cellValue } from '../../src/pool/rows';
import '../../src/views/aw-table';
import '../../src/views/dashboard/aw-trajectory-list';
import { cellText } from '../../src/views/value-text';

const params = new URLSearchParams(location.search);
const impl = params.get('impl') ?? 'aw-table';
const N = Number(params.get('rows') ?? 1_000_000);
const HEIGHT = 600;

function stepsTable(n: number): Table {
  const models = ['gpt-4o-mini', 'claude-sonnet-4', 'qwen3-8b', 'llama-3.1-70b'];
  return tableFromArrays({
    step_id: Array.from({ length: n }, (_, i) => `step-${i.toString(36).padStart(6, '0')}`),
    trajectory_uid: Array.from({ length: n }, (_, i) => `traj-${Math.floor(i / 8)}`),
    step_index: Int32Array.from({ length: n }, (_, i) => i % 8),
    model: Array.from({ length: n }, (_, i) => models[i % 4]),
    reward: Float64Array.from({ length: n }, (_, i) => ((i * 7919) % 1000) / 1000),
    completion: Array.from({ length: n }, (_, i) => `The agent ran tool call number ${i} and read the file src/module-${i % 97}.ts`),
  });
}

function trajectoriesTable(n: number): Table {
  const agents = ['swe-agent', 'openhands', 'codex', 'claude-code'];
  return tableFromArrays({
    trajectory_uid: Array.from({ length: n }, (_, i) => `traj-${i.toString(36).padStart(6, '0')}`),
    prompt_uid: Array.from({ length: n }, (_, i) => `prompt-${i % 5000}`),
    step_count: Int32Array.from({ length: n }, (_, i) => 1 + (i % 40)),
    complete: Array.from({ length: n }, (_, i) => i % 3 !== 0),
    reward_sum: Float64Array.from({ length: n }, (_, i) => ((i * 31) % 100) / 10),
    agents: Array.from({ length: n }, (_, i) => agents[i % 4]),
    models: Array.from({ length: n }, (_, i) => (i % 2 ? 'gpt-4o-mini' : 'claude-sonnet-4')),
    data_source: Array.from({ length: n }, (_, i) => `run-${i % 12}.jsonl`),
    error_steps: Int32Array.from({ length: n }, (_, i) => (i % 11 === 0 ? 1 : 0)),
    bad_steps: Int32Array.from({ length: n }, () => 0),
    unreviewed_steps: Int32Array.from({ length: n }, (_, i) => i % 40),
    trainable_steps: Int32Array.from({ length: n }, (_, i) => i % 7),
    completion_tokens: Int32Array.from({ length: n }, (_, i) => (i * 13) % 4000),
    duration_ms: Int32Array.from({ length: n }, (_, i) => (i * 17) % 90000),
  });
}

const ROW_H_TABLE = 22;
const ROW_H_TRAJ = 24;

/** aw-table's rows (same cells, same CSS), positioned by the virtualizer. */
@customElement('vl-table')
export class VlTable extends LitElement {
  @property({ attribute: false }) table: Table | null = null;
  static override styles = css`
    :host { display: block; font: 12px/1.4 ui-monospace, monospace; }
    .scroll { height: ${HEIGHT}px; border: 1px solid #ccc; min-width: max-content; }
    .row { display: grid; min-width: 100%; height: ${ROW_H_TABLE}px; cursor: default; }
    .row.odd { background: #f4f4f4; }
    .row > div { padding: 0 6px; line-height: ${ROW_H_TABLE}px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; border-right: 1px solid #eee; }
    .idx { color: #888; text-align: right; }
    .num { text-align: right; font-variant-numeric: tabular-nums; }
  `;
  override render() {
    const t = this.table;
    if (!t) return nothing;
    const fields = t.schema.fields;
    const cols = `calc(8ch + 14px) ${fields.map(() => 'minmax(80px, 260px)').join(' ')}`;
    const items = Array.from({ length: t.numRows }, (_, i) => i);
    return html`<div class="scroll" role="grid" aria-rowcount=${t.numRows + 1}>${virtualize({
      items,
      scroller: true,
      renderItem: (i: number) => html`<div class=${i % 2 ? 'row odd' : 'row'} role="row" aria-rowindex=${i + 2} aria-selected="false" tabindex="-1" style="grid-template-columns:${cols}">
        <div class="idx" role="rowheader">${i + 1}</div>
        ${fields.map((_f, j) => {
          const v = cellValue(t, j, i);
          return html`<div role="gridcell" class=${typeof v === 'number' ? 'num' : ''} title=${typeof v === 'string' && v.length > 40 ? v.slice(0, 2000) : nothing}>${cellText(v)}</div>`;
        })}
      </div>`,
    })}</div>`;
  }
}

const TRAJ_COLS = ['trajectory_uid', 'prompt_uid', 'step_count', 'complete', 'reward_sum', 'agents', 'models', 'data_source', 'error_steps', 'bad_steps', 'unreviewed_steps', 'trainable_steps', 'completion_tokens', 'duration_ms'];

/** aw-trajectory-list's rows (same cells, same CSS), positioned by the virtualizer. */
@customElement('vl-trajectories')
export class VlTrajectories extends LitElement {
  @property({ attribute: false }) table: Table | null = null;
  static override styles = css`
    :host { display: block; font-size: 12px; line-height: 1.4; }
    .scroll { height: ${HEIGHT}px; border: 1px solid #ccc; }
    .row { display: grid; min-width: 900px; width: 100%; height: ${ROW_H_TRAJ}px; align-items: center; cursor: pointer; }
    .row > div { padding: 0 6px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
    .num { text-align: right; font-variant-numeric: tabular-nums; }
    .bad { color: #b00; }
  `;
  override render() {
    const t = this.table;
    if (!t) return nothing;
    const cols = 'minmax(140px, 2fr) minmax(90px, 1fr) 56px 50px 64px minmax(70px, 1fr) minmax(70px, 1fr) minmax(70px, 1fr) 56px 44px 56px 50px 64px 64px 70px';
    const idx = TRAJ_COLS.map((c) => t.schema.fields.findIndex((f) => f.name === c));
    const items = Array.from({ length: t.numRows }, (_, i) => i);
    return html`<div class="scroll" role="grid" aria-rowcount=${t.numRows + 1}>${virtualize({
      items,
      scroller: true,
      renderItem: (i: number) => {
        const uid = String(t.getChild('trajectory_uid')?.get(i));
        return html`<div class="row" role="row" aria-rowindex=${i + 2} aria-selected="false" tabindex="0" style="grid-template-columns:${cols}">
          ${TRAJ_COLS.map((c, j) => {
            const v = idx[j] >= 0 ? cellValue(t, idx[j], i) : null;
            const cls = typeof v === 'number' ? (c === 'error_steps' && v > 0 ? 'num bad' : 'num') : '';
            return html`<div role="gridcell" class=${cls} title=${typeof v === 'string' ? v : nothing}>${v === null ? '—' : typeof v === 'boolean' ? (v ? '✓' : '…') : cellText(v)}</div>`;
          })}
          <div role="gridcell" class="num" title=${uid}>—</div>
        </div>`;
      },
    })}</div>`;
  }
}

// ---- the driver's side ----

const frame = () => new Promise<number>((r) => requestAnimationFrame(r));
let el: HTMLElement & { table: Table | null; updateComplete: Promise<boolean> };

function scroller(): HTMLElement {
  return el.shadowRoot!.querySelector('.scroll') as HTMLElement;
}

/** A row (not the header) is painted at the middle of the scroller's viewport. */
function covered(): boolean {
  const s = scroller();
  const r = s.getBoundingClientRect();
  const hit = el.shadowRoot!.elementFromPoint(r.left + 60, r.top + r.height / 2);
  const row = hit?.closest('[role=row]');
  return !!row && row.getAttribute('aria-rowindex') !== null && row.getAttribute('aria-rowindex') !== '1';
}

function nodes(): number {
  return el.shadowRoot!.querySelectorAll('*').length;
}

interface Phase {
  frames: number[];
  blank: number;
}

let recording: { deltas: number[]; on: boolean } = { deltas: [], on: false };
const loafs: { start: number; duration: number; blocking: number }[] = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) loafs.push({ start: e.startTime, duration: e.duration, blocking: (e as unknown as { blockingDuration: number }).blockingDuration ?? 0 });
}).observe({ type: 'long-animation-frame', buffered: true });

async function recordFrames(): Promise<void> {
  let last = await frame();
  while (recording.on) {
    const t = await frame();
    recording.deltas.push(t - last);
    last = t;
  }
}

function summary(deltas: number[], t0: number, t1: number) {
  const s = [...deltas].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
  const inWindow = loafs.filter((l) => l.start >= t0 && l.start <= t1);
  return {
    frames: deltas.length,
    p50: q(0.5),
    p95: q(0.95),
    max: s.at(-1) ?? 0,
    over33: deltas.filter((d) => d > 33.4).length,
    longFrames: inWindow.length,
    blockingMs: inWindow.reduce((a, l) => a + l.blocking, 0),
  };
}

/** Scroll by `px` per frame for `count` frames (a drag or a fling), counting frames whose middle showed no row. */
async function steady(px: number, count: number): Promise<Phase & ReturnType<typeof summary>> {
  const s = scroller();
  const t0 = performance.now();
  const deltas: number[] = [];
  let blank = 0;
  let last = await frame();
  for (let i = 0; i < count; i++) {
    if (!covered()) blank++;
    s.scrollTop += px;
    const t = await frame();
    deltas.push(t - last);
    last = t;
  }
  return { ...summary(deltas, t0, performance.now()), frames: deltas, blank };
}

/** Jump to each position; frames until a row covers the middle (and, for the end, the last row is in the DOM). */
async function jumps(): Promise<{ framesToContent: number[]; ms: number[]; endReached: boolean }> {
  const s = scroller();
  const framesToContent: number[] = [];
  const ms: number[] = [];
  let endReached = false;
  const targets = [1, 0.5, 0, 0.999, 0.25, 0.75, 1, 0.1, 0.9, 0.33, 1, 0.66, 0.05, 1, 0.5];
  for (const f of targets) {
    const t0 = performance.now();
    s.scrollTop = f * (s.scrollHeight - s.clientHeight);
    let k = 0;
    for (; k < 60; k++) {
      await frame();
      const lastIn = f !== 1 || !!el.shadowRoot!.querySelector(`[aria-rowindex="${N + 1}"]`);
      if (covered() && lastIn) break;
    }
    if (f === 1 && el.shadowRoot!.querySelector(`[aria-rowindex="${N + 1}"]`)) endReached = true;
    framesToContent.push(k + 1);
    ms.push(performance.now() - t0);
  }
  return { framesToContent, ms, endReached };
}

declare global {
  interface Window {
    vbench: unknown;
  }
}

window.vbench = {
  async mount() {
    const t0 = performance.now();
    const table = impl.includes('traj') ? trajectoriesTable(N) : stepsTable(N);
    const dataMs = performance.now() - t0;
    el = document.createElement(impl) as typeof el;
    if (impl === 'aw-table' || impl === 'aw-trajectory-list') (el as unknown as { height: number }).height = HEIGHT;
    document.body.append(el);
    const t1 = performance.now();
    el.table = table;
    await el.updateComplete;
    let k = 0;
    while (!covered() && k++ < 120) await frame();
    for (let i = 0; i < 5; i++) await frame();
    return { dataMs, firstRowsMs: performance.now() - t1, nodes: nodes(), scrollHeight: scroller().scrollHeight };
  },
  startRecording() {
    recording = { deltas: [], on: true };
    (window as unknown as { recT0: number }).recT0 = performance.now();
    void recordFrames();
  },
  stopRecording() {
    recording.on = false;
    const r = summary(recording.deltas, (window as unknown as { recT0: number }).recT0, performance.now());
    return { ...r, blankAtEnd: !covered(), scrollTop: scroller().scrollTop };
  },
  async steady(px: number, count: number) {
    const r = await steady(px, count);
    return { ...r, frames: r.frames.length };
  },
  jumps,
  nodes,
  center() {
    const r = scroller().getBoundingClientRect();
    return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
  },
  reset() {
    scroller().scrollTop = 0;
  },
};
