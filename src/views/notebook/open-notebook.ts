/**
 * The notebook open in the Notebook tab, shared with views mounted elsewhere: the export form's source picker lists
 * its cell views and resolves a cell id to the notebook's own schema (as export-state.ts shares the export settings).
 */
import { CELL_ID, type NotebookDoc } from '../../notebook/model';
import { notebookTitle } from '../../notebook/format';
import { schemaName } from '../../notebook/runtime';

export interface OpenNotebook {
  id: string;
  title: string;
  /** The DuckDB schema its cells' views live in (runtime.schemaName). */
  schema: string;
  /** Its query cells with an id, in the notebook's order (lower case, as the views are named). */
  views: string[];
}

export const OPEN_NOTEBOOK_EVENT = 'aw-open-notebook';
let current: OpenNotebook | null = null;

export function openNotebookState(): OpenNotebook | null {
  return current;
}

/** Called by the notebook panel when a notebook opens, closes, changes or runs; tells listeners on `window`. */
export function setOpenNotebook(o: { id: string; doc: NotebookDoc } | null): void {
  const next = o && {
    id: o.id,
    title: notebookTitle(o.doc),
    schema: schemaName(o.id),
    views: o.doc.cells.filter((c) => c.kind === 'sql' && !c.options.effect && c.options.id && CELL_ID.test(c.options.id)).map((c) => (c.options.id as string).toLowerCase()),
  };
  current = next;
  window.dispatchEvent(new CustomEvent(OPEN_NOTEBOOK_EVENT, { detail: next }));
}

/** `schema.view` of one of the open notebook's views (a plain name: schemaName and cell ids are identifiers). */
export function qualifiedView(o: OpenNotebook, view: string): string {
  return `${o.schema}.${view.toLowerCase()}`;
}
