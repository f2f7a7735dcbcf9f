/** The dashboard's charts (Observable Plot). Plot writes labels as text nodes, so trace values stay text. */
import * as Plot from '@observablehq/plot';
import { accessibleChart } from '../kit/chart-a11y';
import type { Row } from '../../pool/rows';

const FONT_PX = 11;
/** Wider than the average glyph of system-ui at 11 px, so a measured margin never clips a label. */
const CHAR_PX = 0.62 * FONT_PX;
const MAX_LABEL = 26;

// the x-axis title sits centred under the tick labels, on its own line
const base = { width: 360, height: 180, marginBottom: 40, style: { fontSize: `${FONT_PX}px`, background: 'transparent' } };
const xAxis = (label: string) => ({ label, labelAnchor: 'center' as const, labelOffset: 34, grid: true });

/** A category label cut to MAX_LABEL characters (the full value is in the bar's title). */
/** The theme's colours (theme.css) as values: Plot writes them into SVG attributes, where var() does not work. */
const CHART = { accent: '#2457c5', ok: '#23804a', error: '#b3261e' } as const;

export function shortLabel(v: unknown): string {
  const s = v === null || v === undefined ? '—' : String(v);
  return s.length > MAX_LABEL ? `${s.slice(0, MAX_LABEL - 1)}…` : s;
}

/** A left margin that fits the longest (shortened) tick label. */
export function labelMargin(labels: string[]): number {
  const longest = Math.max(0, ...labels.map((l) => l.length));
  return Math.ceil(longest * CHAR_PX) + 14;
}

export function rewardHistogram(rows: Row[], ariaLabel = 'Distribution of trajectory rewards'): Element {
  const maxCount = Math.max(0, ...rows.map((r) => Number(r.trajectories) || 0));
  return accessibleChart(Plot.plot({
    ...base,
    marginLeft: labelMargin([maxCount.toLocaleString('en-US')]) + 4,
    ariaLabel,
    x: { ...xAxis('trajectory reward'), grid: false },
    y: { label: '↑ trajectories', labelAnchor: 'top', grid: true },
    // rows are bins counted in SQL (rewardsSql): {x1, x2, trajectories}
    marks: [Plot.rectY(rows, { x1: 'x1', x2: 'x2', y: 'trajectories', fill: CHART.ok, insetLeft: 0.5, insetRight: 0.5 }), Plot.ruleY([0])],
  }));
}

export function breakdownBars(rows: Row[], label: string): Element {
  const labels = rows.map((r) => shortLabel(r.value));
  return accessibleChart(Plot.plot({
    ...base,
    height: Math.max(80, 22 * rows.length + 50),
    marginLeft: labelMargin(labels),
    ariaLabel: `Steps per ${label}`,
    x: xAxis('steps'),
    y: { label: null, tickFormat: shortLabel },
    marks: [
      Plot.barX(rows, { x: 'steps', y: 'value', sort: { y: '-x' }, fill: CHART.accent, title: (r: Row) => `${String(r.value)}: ${r.steps} steps` }),
      Plot.barX(rows, { x: 'errors', y: 'value', fill: CHART.error }),
      Plot.ruleX([0]),
    ],
  }));
}
