/**
 * Declarative chart cells: YAML naming one Observable Plot mark, its data (a SQL cell id), its
 * channels (column names or constants), an optional bin/group transform and Plot options.
 * Everything is checked against fixed lists, so opening a notebook never runs foreign code.
 */
import { parse as parseYaml } from 'yaml';

export const MARKS = [
  'barY', 'barX', 'dot', 'dotX', 'dotY', 'line', 'lineY', 'lineX', 'areaY', 'areaX', 'rectY', 'rectX', 'rect',
  'cell', 'cellX', 'cellY', 'tickX', 'tickY', 'ruleX', 'ruleY', 'text', 'boxX', 'boxY',
] as const;
export type MarkName = (typeof MARKS)[number];

export const TRANSFORMS = ['binX', 'binY', 'bin', 'groupX', 'groupY', 'group', 'groupZ'] as const;
export type TransformName = (typeof TRANSFORMS)[number];

export const CHANNELS = [
  'x', 'y', 'x1', 'x2', 'y1', 'y2', 'fill', 'stroke', 'r', 'text', 'title', 'z', 'fx', 'fy', 'opacity',
  'fillOpacity', 'strokeOpacity', 'symbol',
] as const;
const MARK_OPTIONS = ['tip', 'sort', 'curve', 'marker', 'strokeWidth', 'interval', 'inset', 'dx', 'dy', 'fontSize', 'lineAnchor', 'textAnchor'];
const PLOT_OPTIONS = [
  'height', 'width', 'marginTop', 'marginRight', 'marginBottom', 'marginLeft', 'margin', 'grid', 'title', 'subtitle',
  'caption', 'color', 'inset', 'aspectRatio', 'symbol', 'r', 'opacity',
];
const SCALES = ['x', 'y', 'fx', 'fy', 'color', 'r', 'opacity', 'symbol', 'length'];
export const REDUCERS = [
  'count', 'sum', 'mean', 'median', 'min', 'max', 'mode', 'proportion', 'proportion-facet', 'distinct', 'deviation',
  'variance', 'first', 'last', 'min-index', 'max-index',
];
const TRANSFORM_OPTIONS = ['thresholds', 'interval', 'cumulative', 'reverse', 'domain'];

export type Scalar = string | number | boolean | null;
export type Json = Scalar | Json[] | { [k: string]: Json };

export interface PlotSpec {
  mark: MarkName;
  data: string;
  channels: Record<string, Scalar>;
  markOptions: Record<string, Json>;
  transform: { name: TransformName; outputs: Record<string, string>; options: Record<string, Json> } | null;
  plotOptions: Record<string, Json>;
}

export class PlotSpecError extends Error {
  override name = 'PlotSpecError';
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

function json(v: unknown, where: string): Json {
  if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) return v as Scalar;
  if (Array.isArray(v)) return v.map((x) => json(x, where));
  if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, json(x, `${where}.${k}`)]));
  throw new PlotSpecError(`invalid ${where}: ${String(v)}`);
}

export function parsePlotSpec(source: string): PlotSpec {
  let raw: unknown;
  try {
    raw = parseYaml(source);
  } catch (e) {
    throw new PlotSpecError(`The chart spec is not valid YAML: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!isRecord(raw)) throw new PlotSpecError('The chart spec is empty: write at least `mark: dot`, `data: <cell id>`, `x:` and `y:`.');
  const mark = raw.mark;
  if (typeof mark !== 'string' || !(MARKS as readonly string[]).includes(mark)) {
    throw new PlotSpecError(`invalid mark: ${String(mark)} (use one of ${MARKS.join(', ')})`);
  }
  if (typeof raw.data !== 'string' || !raw.data.trim()) throw new PlotSpecError('Set data: to the id of a SQL cell.');
  const spec: PlotSpec = { mark: mark as MarkName, data: raw.data.trim(), channels: {}, markOptions: {}, transform: null, plotOptions: {} };
  for (const [k, v] of Object.entries(raw)) {
    if (k === 'mark' || k === 'data') continue;
    if ((CHANNELS as readonly string[]).includes(k)) {
      if (v !== null && typeof v === 'object') throw new PlotSpecError(`invalid ${k}: give a column name or a constant`);
      spec.channels[k] = v as Scalar;
    } else if (MARK_OPTIONS.includes(k)) {
      spec.markOptions[k] = json(v, k);
    } else if (k === 'transform') {
      spec.transform = parseTransform(v);
    } else if (k === 'scales') {
      if (!isRecord(v)) throw new PlotSpecError('invalid scales: give a map like {x: {label: "reward"}}');
      for (const [s, o] of Object.entries(v)) {
        if (!SCALES.includes(s) || !isRecord(o)) throw new PlotSpecError(`invalid scale ${s}: use one of ${SCALES.join(', ')} with a map of options`);
        spec.plotOptions[s] = json(o, `scales.${s}`);
      }
    } else if (PLOT_OPTIONS.includes(k)) {
      spec.plotOptions[k] = json(v, k);
    } else {
      throw new PlotSpecError(`unknown chart option: ${k} (channels: ${CHANNELS.join(', ')}; options: ${[...MARK_OPTIONS, ...PLOT_OPTIONS, 'transform', 'scales'].join(', ')})`);
    }
  }
  return spec;
}

function parseTransform(v: unknown): PlotSpec['transform'] {
  if (!isRecord(v) || Object.keys(v).length !== 1) throw new PlotSpecError('invalid transform: write one, like {binX: {y: count}}');
  const [name, body] = Object.entries(v)[0];
  if (!(TRANSFORMS as readonly string[]).includes(name)) throw new PlotSpecError(`invalid transform: ${name} (use one of ${TRANSFORMS.join(', ')})`);
  if (!isRecord(body)) throw new PlotSpecError(`invalid ${name}: give outputs like {y: count}`);
  const outputs: Record<string, string> = {};
  const options: Record<string, Json> = {};
  for (const [k, x] of Object.entries(body)) {
    if (TRANSFORM_OPTIONS.includes(k)) options[k] = json(x, `${name}.${k}`);
    else if ((CHANNELS as readonly string[]).includes(k)) {
      if (typeof x !== 'string' || !REDUCERS.includes(x)) throw new PlotSpecError(`invalid reducer for ${name}.${k}: ${String(x)} (use one of ${REDUCERS.join(', ')})`);
      outputs[k] = x;
    } else throw new PlotSpecError(`invalid ${name} option: ${k}`);
  }
  return { name: name as TransformName, outputs, options };
}
