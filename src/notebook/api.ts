/**
 * What the app shell puts on window.workbench: it acts on the notebook panel currently shown.
 * <aw-notebooks> registers itself here when connected.
 */
export { EXAMPLE_NOTEBOOKS } from './examples';

export interface CellReport {
  id: string;
  status: string;
  rows?: number;
  error?: string;
}

export interface NotebookPanel {
  openMarkdown(markdown: string, opts?: { origin?: string; readonly?: boolean }): Promise<void>;
  runAll(): Promise<{ cells: CellReport[] }>;
  /** The open notebook's SQL as one script (its .sql download), or null when none is open. */
  sql?(): string | null;
}

let current: NotebookPanel | null = null;

export function registerNotebookPanel(p: NotebookPanel): () => void {
  current = p;
  return () => {
    if (current === p) current = null;
  };
}

function panel(): NotebookPanel {
  if (!current) throw new Error('No notebook panel is shown: open the notebook view first.');
  return current;
}

export function openNotebook(markdown: string): void {
  void panel().openMarkdown(markdown);
}

export function runAll(): Promise<{ cells: CellReport[] }> {
  return panel().runAll();
}

/** The open notebook's SQL (the curation recipe a published dataset's card shows), or null: no notebook panel or none open. */
export function openNotebookSql(): string | null {
  return current?.sql?.() ?? null;
}
