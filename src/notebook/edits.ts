/**
 * The notebook's edit operations on its cell list, as plain functions (the <aw-notebook> element
 * applies them and moves the focus): delete and bring back, duplicate, move, add, change kind, and a
 * chart cell inferred from a result's columns.
 */
import { type Cell, type CellKind, makeCell } from './model';

/** A new cell's text by kind. */
export const TEMPLATES: Record<CellKind, string> = {
  sql: '',
  md: '',
  plot: 'mark: dot\ndata: \nx: \ny: ',
};

export type CellEdit =
  | { action: 'delete' | 'duplicate' | 'undo-delete' }
  | { action: 'move'; dir: -1 | 1 }
  | { action: 'add'; kind: CellKind; above?: boolean }
  | { action: 'kind'; kind: CellKind };

/** A deleted cell and where it stood (Alt+Shift+Z brings back the last one). */
export interface DeletedCell {
  cell: Cell;
  index: number;
}

export interface EditResult {
  cells: Cell[];
  deleted: DeletedCell[];
  /** The cell to focus after the edit. */
  focus: number;
}

/** Apply one edit to cell `i`; null when it changes nothing (a move past either end, nothing to bring back). */
export function applyEdit(cells: readonly Cell[], deleted: readonly DeletedCell[], i: number, e: CellEdit): EditResult | null {
  const out = [...cells];
  switch (e.action) {
    case 'delete':
      out.splice(i, 1);
      return { cells: out, deleted: [...deleted, { cell: cells[i], index: i }], focus: i };
    case 'undo-delete': {
      const last = deleted.at(-1);
      if (!last) return null;
      const at = Math.min(last.index, out.length);
      out.splice(at, 0, last.cell);
      return { cells: out, deleted: deleted.slice(0, -1), focus: at };
    }
    case 'duplicate': {
      const c = cells[i];
      const id = c.options.id ? freeId(cells, c.options.id) : undefined;
      out.splice(i + 1, 0, makeCell(c.kind, c.source, { ...c.options, ...(id ? { id } : {}) }));
      return { cells: out, deleted: [...deleted], focus: i + 1 };
    }
    case 'move': {
      const j = i + e.dir;
      if (j < 0 || j >= out.length) return null;
      [out[i], out[j]] = [out[j], out[i]];
      return { cells: out, deleted: [...deleted], focus: j };
    }
    case 'add': {
      const at = e.above ? i : i + 1;
      out.splice(at, 0, makeCell(e.kind, TEMPLATES[e.kind]));
      return { cells: out, deleted: [...deleted], focus: at };
    }
    case 'kind': {
      const c = cells[i];
      const options = e.kind === 'sql' ? c.options : { ...c.options, effect: undefined, run: undefined, id: e.kind === 'md' ? undefined : c.options.id };
      out[i] = { ...c, kind: e.kind, options: JSON.parse(JSON.stringify(options)) };
      return { cells: out, deleted: [...deleted], focus: i };
    }
  }
}

/** `base` with the next free `_N` suffix among the cells' ids (case-insensitive). */
export function freeId(cells: readonly Cell[], base: string): string {
  const used = new Set(cells.map((c) => c.options.id?.toLowerCase()));
  const stem = base.replace(/_\d+$/, '');
  for (let n = 2; ; n++) if (!used.has(`${stem}_${n}`.toLowerCase())) return `${stem}_${n}`;
}

/** A plot spec for a view's columns: bars of a number by a category, a scatter of two numbers, a histogram of one, else counts by the first column. */
export function chartSpec(view: string, fields: readonly { name: string; type: unknown }[]): string {
  const isNum = (f: { type: unknown }) => /Int|Float|Decimal/.test(String(f.type));
  const cat = fields.find((f) => /Utf8|Bool/.test(String(f.type)));
  const nums = fields.filter(isNum);
  if (cat && nums[0]) return `mark: barY\ndata: ${view}\nx: ${cat.name}\ny: ${nums[0].name}\ntip: true`;
  if (nums.length >= 2) return `mark: dot\ndata: ${view}\nx: ${nums[0].name}\ny: ${nums[1].name}\ntip: true`;
  if (nums[0]) return `mark: rectY\ndata: ${view}\nx: ${nums[0].name}\ntransform: {binX: {y: count}}\ntip: true`;
  return `mark: barY\ndata: ${view}\nx: ${fields[0]?.name ?? ''}\ntransform: {groupX: {y: count}}\ntip: true`;
}
