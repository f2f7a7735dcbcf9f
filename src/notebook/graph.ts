/**
 * The notebook's dependency graph: a SQL cell with id=x defines x; a cell depends on the cells
 * whose ids its SQL reads (or a plot's `data`). Cycles, duplicate ids and unknown names become
 * per-cell errors, never exceptions, so the rest of the notebook keeps working.
 */
import { parse as parseYaml } from 'yaml';
import { type Cell, CELL_ID } from './model';
import { analyzeSql, type TableRef } from './sql-tokens';

export interface CellNode {
  key: string;
  /** Lower-cased id the cell defines, if any. */
  defines: string | null;
  /** Keys of the cells this one reads. */
  deps: string[];
  /** Names read that no cell defines (pool tables, or unknown). */
  external: string[];
  refs: TableRef[];
  mutates: boolean;
  error: string | null;
}

export interface GraphOptions {
  /** Lower-cased names of the pool's tables and views; when given, other names are errors. */
  tables?: ReadonlySet<string>;
}

export interface Graph {
  nodes: Map<string, CellNode>;
  /** Cell keys in an order where every cell comes after the cells it reads (cycle members last). */
  order: string[];
  byId: Map<string, string>;
}

/** The cell id a plot spec reads (`data: x`), or null. */
export function plotDataId(source: string): string | null {
  let spec: unknown;
  try {
    spec = parseYaml(source);
  } catch {
    return null; // the chart cell reports its own YAML error
  }
  const d = (spec as { data?: unknown } | null)?.data;
  return typeof d === 'string' && d.trim() ? d.trim().toLowerCase() : null;
}

export function buildGraph(cells: readonly Cell[], opts: GraphOptions = {}): Graph {
  const nodes = new Map<string, CellNode>();
  const byId = new Map<string, string>();
  const dupes = new Set<string>();
  for (const c of cells) {
    if (c.kind !== 'sql' || !c.options.id) continue;
    const id = c.options.id.toLowerCase();
    if (byId.has(id)) dupes.add(c.key);
    else byId.set(id, c.key);
  }
  for (const c of cells) {
    if (c.kind === 'md') continue;
    const node: CellNode = { key: c.key, defines: null, deps: [], external: [], refs: [], mutates: false, error: null };
    let names: string[] = [];
    if (c.kind === 'sql') {
      const a = analyzeSql(c.source);
      node.refs = a.refs;
      node.mutates = a.mutates;
      names = a.refs.filter((r) => r.qualifier.length === 0).map((r) => r.name);
      if (c.options.id) {
        node.defines = c.options.id.toLowerCase();
        if (!CELL_ID.test(c.options.id)) node.error = `Invalid cell id "${c.options.id}": use letters, digits and _ and start with a letter.`;
        else if (dupes.has(c.key)) node.error = `Another cell already has id=${c.options.id}; rename one of them.`;
      }
    } else {
      const d = plotDataId(c.source);
      if (d) names = [d];
    }
    const deps = new Set<string>();
    const external = new Set<string>();
    for (const name of names) {
      const k = byId.get(name);
      if (k && k !== c.key) deps.add(k);
      else if (k !== c.key) external.add(name);
    }
    node.deps = [...deps];
    node.external = [...external];
    if (!node.error && c.kind === 'plot' && node.external.length) {
      node.error = `Unknown data "${node.external[0]}": no SQL cell has id=${node.external[0]}. Set data: to the id of a SQL cell.`;
    } else if (!node.error && opts.tables) {
      const unknown = node.external.find((n) => !opts.tables!.has(n));
      if (unknown) node.error = `Unknown table "${unknown}": no cell has id=${unknown} and the pool has no such table or view.`;
    }
    nodes.set(c.key, node);
  }
  const order = topoOrder(nodes);
  return { nodes, order, byId };
}

function topoOrder(nodes: Map<string, CellNode>): string[] {
  const state = new Map<string, 'visiting' | 'done'>();
  const order: string[] = [];
  const inCycle = new Set<string>();
  const stack: string[] = [];
  const visit = (key: string) => {
    const s = state.get(key);
    if (s === 'done') return;
    if (s === 'visiting') {
      const from = stack.indexOf(key);
      for (const k of stack.slice(from)) inCycle.add(k);
      return;
    }
    state.set(key, 'visiting');
    stack.push(key);
    for (const d of nodes.get(key)?.deps ?? []) visit(d);
    stack.pop();
    state.set(key, 'done');
    order.push(key);
  };
  for (const key of nodes.keys()) visit(key);
  for (const key of inCycle) {
    const n = nodes.get(key)!;
    const names = [...inCycle].map((k) => nodes.get(k)?.defines ?? '?').join(' → ');
    n.error ??= `Circular reference: ${names} read each other. Break the cycle by changing one of these cells.`;
  }
  // Cells that read a broken cell cannot run either; they say which one.
  for (const key of order) {
    const n = nodes.get(key)!;
    if (n.error) continue;
    const bad = n.deps.find((d) => inCycle.has(d));
    if (bad) n.error = `Depends on ${nodes.get(bad)?.defines}, which is part of a circular reference.`;
  }
  return order;
}

/** The given cells and every cell downstream of them, in run order. */
export function downstream(g: Graph, keys: Iterable<string>): string[] {
  const want = new Set(keys);
  for (const key of g.order) {
    const n = g.nodes.get(key)!;
    if (n.deps.some((d) => want.has(d))) want.add(key);
  }
  return g.order.filter((k) => want.has(k));
}

/** Cells that read any of the given pool tables directly. */
export function readersOf(g: Graph, tables: Iterable<string>): string[] {
  const t = new Set([...tables].map((x) => x.toLowerCase()));
  return g.order.filter((k) => g.nodes.get(k)!.external.some((n) => t.has(n)));
}
