/** The dashboard's charts (Observable Plot). Plot writes labels as text nodes, so trace values stay text. */
import * as Plot from '@observablehq/plot';
import type { Row } from '../../pool/rows';

const base = { width: 360, height: 180, marginLeft: 110, style: { fontSize: '11px', background: 'transparent' } };

export function rewardHistogram(rows: Row[], ariaLabel = 'Distribution of trajectory rewards'): Element {
  return Plot.plot({
    ...base,
    marginLeft: 40,
    ariaLabel,
    x: { label: 'trajectory reward' },
    y: { label: 'trajectories', grid: true },
    // rows are bins counted in SQL (rewardsSql): {x1, x2, trajectories}
    marks: [Plot.rectY(rows, { x1: 'x1', x2: 'x2', y: 'trajectories', fill: '#2da44e', insetLeft: 0.5, insetRight: 0.5 }), Plot.ruleY([0])],
  });
}

export function breakdownBars(rows: Row[], label: string): Element {
  return Plot.plot({
    ...base,
    height: Math.max(60, 22 * rows.length + 30),
    ariaLabel: `Steps per ${label}`,
    x: { label: 'steps', grid: true },
    y: { label: null },
    marks: [
      Plot.barX(rows, { x: 'steps', y: 'value', sort: { y: '-x' }, fill: '#0969da' }),
      Plot.barX(rows, { x: 'errors', y: 'value', fill: '#cf222e' }),
      Plot.ruleX([0]),
    ],
  });
}
