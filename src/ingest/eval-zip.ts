/**
 * Inspect AI `.eval` archives: a ZIP of JSON members (`header.json` or, while an eval runs,
 * `_journal/start.json`; then `samples/<id>_epoch_<n>.json`). Read whole in memory with fflate and
 * handed to the normalizers as records, header first, samples in natural order. Other ZIPs are refused.
 */
import { strFromU8, unzipSync } from 'fflate';
import { ReadError, type ReadEvent } from './reader';

export function isZip(b: Uint8Array): boolean {
  return b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;
}

const HEADERS = ['header.json', '_journal/start.json'];
const isSampleMember = (name: string) => name.startsWith('samples/') && name.endsWith('.json');

export async function* evalZipEvents(bytes: Uint8Array): AsyncGenerator<ReadEvent> {
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, { filter: (f) => HEADERS.includes(f.name) || isSampleMember(f.name) });
  } catch (e) {
    throw new ReadError(`the ZIP archive cannot be read (${e instanceof Error ? e.message : String(e)}); an Inspect .eval log compressed with zstd is not supported — convert it with \`inspect log convert --to json\``);
  }
  const header = HEADERS.find((h) => h in files);
  const samples = Object.keys(files)
    .filter(isSampleMember)
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  if (!header && !samples.length) throw new ReadError('this ZIP archive is not an Inspect .eval log (it has no header.json and no samples/): unpack it and import its JSON files');
  const members = header ? [header, ...samples] : samples;
  for (const [index, name] of members.entries()) {
    let value: unknown;
    try {
      value = JSON.parse(strFromU8(files[name]));
    } catch (e) {
      yield { kind: 'reject', line: index + 1, reason: `${name}: not JSON (${e instanceof Error ? e.message : String(e)})` };
      continue;
    }
    yield { kind: 'record', record: { value, line: index + 1, index } };
  }
}
