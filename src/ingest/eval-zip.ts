/**
 * Inspect AI `.eval` archives: a ZIP of JSON members (`header.json` or, while an eval runs,
 * `_journal/start.json`; then `samples/<id>_epoch_<n>.json`). Read in memory with fflate and handed
 * to the normalizers as records, header first, samples in natural order. Other ZIPs are refused.
 *
 * A ZIP is hostile until read: the sizes its directory declares are checked before anything is
 * inflated (an entry past MAX_RECORD is a reject, "archive entry too large", and is never inflated;
 * a bomb used to inflate for two minutes and end as "not JSON"), and the members are inflated a
 * batch at a time, so no more than BATCH_BYTES of them are held inflated at once.
 */
import { strFromU8, type UnzipFileInfo, unzipSync } from 'fflate';
import { TOO_DEEP, tooDeep } from './json-values';
import { MAX_RECORD, ReadError, type ReadEvent } from './reader';

export function isZip(b: Uint8Array): boolean {
  return b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;
}

const HEADERS = ['header.json', '_journal/start.json'];
const isSampleMember = (name: string) => name.startsWith('samples/') && name.endsWith('.json');

/** Declared inflated bytes of the members inflated in one pass over the archive. */
const BATCH_BYTES = 256 * 1024 * 1024;

const STORED = 0;
const DEFLATE = 8;

export interface EvalZipOptions {
  /** The archive's file name, for the reasons of rejected entries. */
  file?: string;
  /** The largest inflated entry read (bytes, as the archive declares it); default MAX_RECORD. */
  maxEntryBytes?: number;
  /** Declared bytes inflated per pass; default BATCH_BYTES. */
  batchBytes?: number;
}

const mb = (n: number) => `${Math.round(n / (1024 * 1024))} MB`;

function cannotRead(e: unknown): ReadError {
  return new ReadError(`the ZIP archive cannot be read (${e instanceof Error ? e.message : String(e)}); an Inspect .eval log compressed with zstd is not supported — convert it with \`inspect log convert --to json\``);
}

export async function* evalZipEvents(bytes: Uint8Array, opts: EvalZipOptions = {}): AsyncGenerator<ReadEvent> {
  const maxEntry = opts.maxEntryBytes ?? MAX_RECORD;
  const batchLimit = opts.batchBytes ?? BATCH_BYTES;
  // the directory only: a filter that takes nothing inflates nothing
  const listed = new Map<string, UnzipFileInfo>();
  try {
    unzipSync(bytes, {
      filter: (f) => {
        if (HEADERS.includes(f.name) || isSampleMember(f.name)) listed.set(f.name, f);
        return false;
      },
    });
  } catch (e) {
    throw cannotRead(e);
  }
  const odd = [...listed.values()].find((f) => f.compression !== STORED && f.compression !== DEFLATE);
  if (odd) throw cannotRead(new Error(`${odd.name}: compression method ${odd.compression}`));
  const header = HEADERS.find((h) => listed.has(h));
  const samples = [...listed.keys()].filter(isSampleMember).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  if (!header && !samples.length) throw new ReadError('this ZIP archive is not an Inspect .eval log (it has no header.json and no samples/): unpack it and import its JSON files');
  const members = header ? [header, ...samples] : samples;

  let batch: { name: string; index: number }[] = [];
  let batchBytes = 0;
  const inflateBatch = function* (): Generator<ReadEvent> {
    if (!batch.length) return;
    const names = new Set(batch.map((m) => m.name));
    let files: Record<string, Uint8Array>;
    try {
      files = unzipSync(bytes, { filter: (f) => names.has(f.name) });
    } catch (e) {
      throw cannotRead(e);
    }
    for (const { name, index } of batch) {
      const text = strFromU8(files[name]);
      if (tooDeep(text)) {
        yield { kind: 'reject', line: index + 1, reason: `${name}: ${TOO_DEEP}` };
        continue;
      }
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (e) {
        yield { kind: 'reject', line: index + 1, reason: `${name}: not JSON (${e instanceof Error ? e.message : String(e)})` };
        continue;
      }
      yield { kind: 'record', record: { value, line: index + 1, index } };
    }
    batch = [];
    batchBytes = 0;
  };
  for (const [index, name] of members.entries()) {
    const declared = listed.get(name)?.originalSize ?? 0;
    if (declared > maxEntry) {
      yield* inflateBatch();
      yield {
        kind: 'reject',
        line: index + 1,
        reason: `archive entry too large: ${opts.file ? `${opts.file} › ` : ''}${name} inflates to ${mb(declared)} (as the archive declares), over the ${mb(maxEntry)} an entry may hold; it was not inflated, the other entries are read`,
      };
      continue;
    }
    if (batch.length && batchBytes + declared > batchLimit) yield* inflateBatch();
    batch.push({ name, index });
    batchBytes += declared;
  }
  yield* inflateBatch();
}
