/**
 * The export form's current settings, shared with views mounted elsewhere: the notebook panel's "Run headless"
 * prints them as `agentworld export` flags (as the dashboard filter is shared through filter-state.ts).
 */
import type { HeadlessExportOptions } from '../../export/export-flags';

export interface ExportSettings {
  options: HeadlessExportOptions;
  /** The source was a notebook cell's view: its name as typed. */
  view: string | null;
  /** Part files: a folder per value of these columns, and the largest part in MB (1 MB = 10^6 bytes, as the CLI reads it). */
  partitionBy?: readonly string[];
  maxFileMb?: number;
}

let current: ExportSettings | null = null;

export function exportSettings(): ExportSettings | null {
  return current;
}

export function setExportSettings(s: ExportSettings | null): void {
  current = s;
}
