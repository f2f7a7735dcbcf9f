/** Arrow IPC chunks → JSONL / CSV text parts (Parquet goes through parquet-wasm in the export worker). */
import { tableFromIPC } from 'apache-arrow';
import { tableToRows } from '../pool/rows';

export function jsonlPart(ipc: Uint8Array): { text: string; rows: number } {
  const rows = tableToRows(tableFromIPC(ipc));
  let text = '';
  for (const r of rows) text += `${JSON.stringify(r)}\n`;
  return { text, rows: rows.length };
}

function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

export function csvPart(ipc: Uint8Array, header: boolean): { text: string; rows: number } {
  const t = tableFromIPC(ipc);
  const names = t.schema.fields.map((f) => f.name);
  const rows = tableToRows(t);
  let text = header ? `${names.map(csvCell).join(',')}\n` : '';
  for (const r of rows) text += `${names.map((n) => csvCell(r[n])).join(',')}\n`;
  return { text, rows: rows.length };
}
