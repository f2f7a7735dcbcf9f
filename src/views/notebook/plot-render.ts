/** A checked PlotSpec (notebook/plot-spec.ts) + rows → an Observable Plot figure. */
import * as Plot from '@observablehq/plot';
import { accessibleChart } from '../kit/chart-a11y';
import { DataType, type Table } from 'apache-arrow';
import type { MarkName, PlotSpec } from '../../notebook/plot-spec';
import { tableToRows } from '../../pool/rows';

type MarkFn = (data: unknown, options: Record<string, unknown>) => Plot.Markish;
type TransformFn = (outputs: Record<string, unknown>, options: Record<string, unknown>) => Record<string, unknown>;

const MARK_FNS: Record<MarkName, MarkFn> = {
  barY: Plot.barY as MarkFn, barX: Plot.barX as MarkFn, dot: Plot.dot as MarkFn, dotX: Plot.dotX as MarkFn,
  dotY: Plot.dotY as MarkFn, line: Plot.line as MarkFn, lineY: Plot.lineY as MarkFn, lineX: Plot.lineX as MarkFn,
  areaY: Plot.areaY as MarkFn, areaX: Plot.areaX as MarkFn, rectY: Plot.rectY as MarkFn, rectX: Plot.rectX as MarkFn,
  rect: Plot.rect as MarkFn, cell: Plot.cell as MarkFn, cellX: Plot.cellX as MarkFn, cellY: Plot.cellY as MarkFn,
  tickX: Plot.tickX as MarkFn, tickY: Plot.tickY as MarkFn, ruleX: Plot.ruleX as MarkFn, ruleY: Plot.ruleY as MarkFn,
  text: Plot.text as MarkFn, boxX: Plot.boxX as MarkFn, boxY: Plot.boxY as MarkFn,
};
const TRANSFORM_FNS: Record<string, TransformFn> = {
  binX: Plot.binX as unknown as TransformFn, binY: Plot.binY as unknown as TransformFn, bin: Plot.bin as unknown as TransformFn,
  groupX: Plot.groupX as unknown as TransformFn, groupY: Plot.groupY as unknown as TransformFn,
  group: Plot.group as unknown as TransformFn, groupZ: Plot.groupZ as unknown as TransformFn,
};
/** Marks whose baseline reads better with a rule at zero. */
const ZERO_Y = new Set<MarkName>(['barY', 'rectY', 'areaY']);
const ZERO_X = new Set<MarkName>(['barX', 'rectX', 'areaX']);

/** Rows for Plot: timestamps as Dates so time scales work. */
export function plotRows(table: Table): Record<string, unknown>[] {
  const rows = tableToRows(table);
  const times = table.schema.fields.filter((f) => DataType.isTimestamp(f.type) || DataType.isDate(f.type)).map((f) => f.name);
  if (times.length) for (const r of rows) for (const k of times) if (typeof r[k] === 'string') r[k] = new Date(r[k] as string);
  return rows;
}

/** Plot's tick labels: 10 px system-ui, about this wide per character (the dashboard's charts measure the same way). */
const CHAR_PX = 6.2;
/** Longer category labels are cut with … (their full text is in the data and the tooltip). */
const MAX_LABEL = 36;

function cut(v: unknown): string {
  const s = String(v);
  return s.length > MAX_LABEL ? `${s.slice(0, MAX_LABEL - 1)}…` : s;
}

/**
 * Room for the y axis's tick labels, which Plot's fixed 40 px default clips (a category name, a large number): the
 * widest label of the y column's values, as the dashboard's charts size their margin. Null when y is no column.
 */
export function yAxisMargin(rows: Record<string, unknown>[], y: unknown): number | null {
  if (typeof y !== 'string') return null;
  let longest = 0;
  for (const r of rows) {
    const v = r[y];
    if (v === null || v === undefined || v instanceof Date) continue;
    const text = typeof v === 'number' ? Math.round(Math.abs(v)).toLocaleString('en-US') + (v < 0 ? '−' : '') : cut(v);
    longest = Math.max(longest, text.length);
  }
  return longest ? Math.max(40, Math.ceil(longest * CHAR_PX) + 14) : null;
}

export function renderPlot(spec: PlotSpec, table: Table, width: number): SVGSVGElement | HTMLElement {
  const data = plotRows(table);
  const columns = new Set(table.schema.fields.map((f) => f.name));
  let options: Record<string, unknown> = { ...spec.channels, ...spec.markOptions };
  for (const [k, v] of Object.entries(spec.channels)) {
    // A name that is no column of the data is a constant (a colour) for fill / stroke, else a mistake.
    if (typeof v === 'string' && !columns.has(v) && !['fill', 'stroke'].includes(k)) {
      throw new Error(`invalid ${k}: ${v} is not a column of ${spec.data} (columns: ${[...columns].join(', ')})`);
    }
  }
  if (spec.transform) options = TRANSFORM_FNS[spec.transform.name](spec.transform.outputs, { ...options, ...spec.transform.options });
  const marks: Plot.Markish[] = [MARK_FNS[spec.mark](data, options)];
  if (ZERO_Y.has(spec.mark)) marks.push(Plot.ruleY([0]));
  if (ZERO_X.has(spec.mark)) marks.push(Plot.ruleX([0]));
  const plotOptions: Record<string, unknown> = { width, ...spec.plotOptions, marks };
  const margin = spec.plotOptions.marginLeft === undefined && spec.plotOptions.margin === undefined ? yAxisMargin(data, spec.channels.y) : null;
  if (margin !== null) plotOptions.marginLeft = margin;
  // category labels past MAX_LABEL characters are cut, so the margin stays sane
  const yScale = (spec.plotOptions.y ?? {}) as Record<string, unknown>;
  if (typeof spec.channels.y === 'string' && data.some((r) => typeof r[spec.channels.y as string] === 'string') && yScale.tickFormat === undefined) plotOptions.y = { ...yScale, tickFormat: cut };
  if (spec.channels.fx !== undefined || spec.channels.fy !== undefined) plotOptions.marginRight ??= 60;
  return accessibleChart(Plot.plot(plotOptions as Plot.PlotOptions), `Chart of ${spec.data}`);
}
