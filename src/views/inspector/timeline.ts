/**
 * A trajectory as a tree of timed rows for the timeline view: its steps (nested under the step whose span
 * is their parent, when the source recorded span ids — OpenTelemetry, Phoenix, Langfuse), the spans that
 * are parents but not LLM calls (agent / chain / tool spans: shown as groups), and each step's tool calls
 * as its children. Offsets place each step on one waterfall; without start times the steps are laid end to
 * end by their latencies and the view says so.
 */
import type { ToolCall } from '../../contract/step';
import { stepCost } from '../kit/prices';
import { maxOf, minOf } from '../../util/extent';

export interface StepTiming {
  step_index: number;
  started_ms: number | null;
  ended_ms: number | null;
  latency_ms: number | null;
  span_id: string | null;
  parent_id: string | null;
  span_name: string | null;
}

export interface TimelineStepInput extends StepTiming {
  model: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  status: string | null;
  tool_calls: ToolCall[];
}

export type TimelineRow =
  | { kind: 'step'; depth: number; step: number; label: string; start: number | null; duration: number | null; model: string | null;
      prompt_tokens: number | null; completion_tokens: number | null; cost: number | null; status: string | null; span_id: string | null }
  | { kind: 'span'; depth: number; span_id: string; label: string }
  | { kind: 'tool'; depth: number; step: number; label: string; call_id: string | null };

export interface Timeline {
  rows: TimelineRow[];
  /** Milliseconds from the first start to the last end (null when nothing is timed). */
  total: number | null;
  /** Start times were missing: offsets are cumulative latencies. */
  estimated: boolean;
  /** Spans recorded by the source (some step has a parent span). */
  spans: boolean;
  tokens: { prompt: number | null; completion: number | null };
  cost: number | null;
  /** Steps with token counts whose model has no price. */
  unpriced: number;
}

const sum = (xs: (number | null)[]): number | null => xs.reduce<number | null>((a, x) => (x === null ? a : (a ?? 0) + x), null);

export function buildTimeline(steps: TimelineStepInput[]): Timeline {
  const timed = steps.some((s) => s.started_ms !== null);
  const t0 = timed ? minOf(steps.flatMap((s) => (s.started_ms === null ? [] : [s.started_ms]))) : 0;
  let cursor = 0;
  const placed = steps.map((s) => {
    const duration = s.latency_ms ?? (s.started_ms !== null && s.ended_ms !== null ? s.ended_ms - s.started_ms : null);
    let start: number | null;
    if (timed) start = s.started_ms === null ? null : s.started_ms - t0;
    else {
      start = duration === null ? null : cursor;
      cursor += duration ?? 0;
    }
    return { s, start, duration };
  });
  const ends = placed.flatMap((p) => (p.start !== null ? [p.start + (p.duration ?? 0)] : []));
  const total = ends.length ? maxOf(ends) : null;

  const bySpan = new Map<string, number>();
  steps.forEach((s, i) => {
    if (s.span_id) bySpan.set(s.span_id, i);
  });
  const children = new Map<string, number[]>(); // parent key → step positions
  const groups: string[] = []; // parent spans that are not steps, in first-seen order
  const roots = new Set<number>();
  const child = (key: string, i: number) => {
    const list = children.get(key);
    if (list) list.push(i);
    else children.set(key, [i]);
  };
  steps.forEach((s, i) => {
    const p = s.parent_id;
    if (p && bySpan.has(p) && bySpan.get(p) !== i) child(`step:${bySpan.get(p)}`, i);
    else if (p && !bySpan.has(p)) {
      if (!children.has(`span:${p}`)) groups.push(p);
      child(`span:${p}`, i);
    } else roots.add(i);
  });

  const rows: TimelineRow[] = [];
  const seen = new Set<number>();
  // depth first with a stack of its own: a source whose steps each name the one before as parent nests as deep as it is long
  const emitStep = (first: number, firstDepth: number) => {
    const todo: [number, number][] = [[first, firstDepth]];
    for (let next = todo.pop(); next; next = todo.pop()) {
      const [i, depth] = next;
      if (seen.has(i)) continue; // a cycle in the source's parent ids shows each step once
      seen.add(i);
      const { s, start, duration } = placed[i] as (typeof placed)[number];
      rows.push({
        kind: 'step', depth, step: i, label: s.span_name ?? `step ${s.step_index}`, start, duration, model: s.model,
        prompt_tokens: s.prompt_tokens, completion_tokens: s.completion_tokens, cost: stepCost(s.model, s.prompt_tokens, s.completion_tokens),
        status: s.status, span_id: s.span_id,
      });
      for (const c of s.tool_calls) rows.push({ kind: 'tool', depth: depth + 1, step: i, label: c.function?.name ?? '?', call_id: c.id ?? null });
      const kids = children.get(`step:${i}`) ?? [];
      for (let k = kids.length - 1; k >= 0; k--) todo.push([kids[k] as number, depth + 1]);
    }
  };
  // top level in step order: root steps, and each parent span where its first child would be
  const firstChild = new Map(groups.map((g) => [minOf(children.get(`span:${g}`) ?? []), g]));
  for (let i = 0; i < steps.length; i++) {
    const g = firstChild.get(i);
    if (g !== undefined) {
      rows.push({ kind: 'span', depth: 0, span_id: g, label: `span ${g}` });
      for (const k of children.get(`span:${g}`) ?? []) emitStep(k, 1);
    } else if (roots.has(i)) emitStep(i, 0);
  }
  for (let i = 0; i < steps.length; i++) if (!seen.has(i)) emitStep(i, 0); // only reachable through a cycle

  const costs = steps.map((s) => stepCost(s.model, s.prompt_tokens, s.completion_tokens));
  return {
    rows,
    total,
    estimated: !timed && total !== null,
    spans: steps.some((s) => s.parent_id !== null),
    tokens: { prompt: sum(steps.map((s) => s.prompt_tokens)), completion: sum(steps.map((s) => s.completion_tokens)) },
    cost: sum(costs),
    unpriced: steps.filter((s, i) => costs[i] === null && (s.prompt_tokens !== null || s.completion_tokens !== null)).length,
  };
}
