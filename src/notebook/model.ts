/**
 * Saved cell data (what the .md file holds), kept apart from runtime state (runtime.ts), as marimo
 * splits CellData from CellRuntimeState.
 */

export const CellKind = { sql: 'sql', plot: 'plot', md: 'md' } as const;
export type CellKind = (typeof CellKind)[keyof typeof CellKind];

export interface CellOptions {
  /** SQL: the view the cell defines. Plot: an optional name. */
  id?: string;
  /** Collapse the source in the UI. */
  hidden?: boolean;
  /** false: define the view but do not compute the result on open / reactively. */
  run?: boolean;
  /** The cell changes data: run only on explicit request. */
  effect?: boolean;
  /** Options this version does not know, kept in order so they survive a save. */
  extra?: [string, string | true][];
}

export interface Cell {
  /** In-memory identity for the UI (not saved). */
  key: string;
  kind: CellKind;
  source: string;
  options: CellOptions;
}

export interface NotebookDoc {
  /** Front matter YAML text, without the --- lines; '' when there is none. */
  frontMatter: string;
  cells: Cell[];
}

let keySeq = 0;
export function newKey(): string {
  keySeq += 1;
  return `c${keySeq.toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

export function makeCell(kind: CellKind, source = '', options: CellOptions = {}): Cell {
  return { key: newKey(), kind, source, options };
}

/** Identifiers DuckDB accepts unquoted and we can use as a view name. */
export const CELL_ID = /^[A-Za-z_][A-Za-z0-9_]*$/;
