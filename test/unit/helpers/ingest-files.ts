import { readFileSync } from 'node:fs';
import { tableFromIPC } from 'apache-arrow';
import type { ImportReport } from '../../../src/contract/reports';
import { ingestFile } from '../../../src/ingest/pipeline';
import type { ChatMessage } from '../../../src/contract/step';

export type IngestedRow = Record<string, unknown> & { messages: ChatMessage[]; metadata: Record<string, string> | null };

export const formatFile = (name: string) => new File([readFileSync(new URL(`../../fixtures/formats/${name}`, import.meta.url))], name);

/** Import one fixture through the real pipeline (detect, normalize, finalize, Arrow) with other fixtures as the sibling files of the same import. */
export async function importWith(name: string | File, siblings: (string | File)[], format?: string): Promise<{ report: ImportReport; rows: IngestedRow[] }> {
  const asFile = (f: string | File) => (typeof f === 'string' ? formatFile(f) : f);
  const rows: IngestedRow[] = [];
  const report = await ingestFile(
    asFile(name),
    {
      beginImport: async () => 1,
      setImportSource: async () => {},
      appendBatch: async (_id, bytes) => {
        for (const r of tableFromIPC(bytes).toArray()) {
          const o = r.toJSON() as Record<string, unknown>;
          const msgs = o.messages as { toArray(): { toJSON(): unknown }[] } | null;
          const meta = o.metadata as { toJSON(): Record<string, string> } | null;
          rows.push({ ...o, messages: msgs ? msgs.toArray().map((m) => m.toJSON() as ChatMessage) : [], metadata: meta ? { ...meta.toJSON() } : null });
        }
      },
      commitImport: async () => ({ rowsAdded: rows.length }),
      abortImport: async () => {},
    },
    { siblings: siblings.map(asFile), format },
  );
  return { report, rows };
}
