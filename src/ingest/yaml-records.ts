/**
 * YAML text → records, for the reader (reader.ts picks this container when the text starts like a YAML
 * document and not like JSON / JSON Lines / SSE). Used for VCR cassettes (vcrpy, pytest-recording).
 * The file is read whole (YAML has no record boundaries a stream could split on), up to the reader's
 * record size limit; each YAML document is one record. `!!binary` scalars become `{"!!binary": base64}`
 * so records stay plain JSON values; other unknown tags (`!!python/unicode`, …) keep their text.
 */
import { parseAllDocuments, type ScalarTag } from 'yaml';
import type { ReadEvent } from './normalizer';

/** The key a `!!binary` scalar is kept under: `{"!!binary": "<base64>"}`. */
export const YAML_BINARY = '!!binary';

const binary: ScalarTag = {
  tag: 'tag:yaml.org,2002:binary',
  identify: () => false,
  resolve: (text: string) => ({ [YAML_BINARY]: text.replace(/\s+/g, '') }),
};

/**
 * A YAML document start: `%YAML` / `---`, or a first line that is a plain `key:` mapping entry (a
 * word, a colon, then a space or the end of the line). JSON, JSON Lines and SSE are tested first.
 */
export function looksLikeYaml(head: string): boolean {
  const first = head.split('\n', 1)[0].replace(/\r$/, '');
  return /^(?:%YAML\b|---(?:\s|$))/.test(first) || /^[A-Za-z_][\w.-]*:(?:\s|$)/.test(first);
}

/** All of a YAML text's documents as records (line = the document's first line). */
export async function* yamlRecords(texts: AsyncIterable<string>, maxChars: number): AsyncGenerator<ReadEvent> {
  const parts: string[] = [];
  let size = 0;
  for await (const t of texts) {
    size += t.length;
    if (size > maxChars) {
      yield { kind: 'reject', line: 1, reason: `YAML document too large to read whole (over ${maxChars} characters)` };
      return;
    }
    parts.push(t);
  }
  const text = parts.join('');
  const lineAt = (offset: number) => {
    let n = 1;
    for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) n++;
    return n;
  };
  let index = 0;
  for (const doc of parseAllDocuments(text, { customTags: [binary], uniqueKeys: false, prettyErrors: false })) {
    const line = lineAt(doc.range[0]);
    if (doc.errors.length) {
      yield { kind: 'reject', line: doc.errors[0].linePos?.[0]?.line ?? line, reason: `not valid YAML: ${doc.errors[0].message}` };
      continue;
    }
    for (const w of doc.warnings) if (!/Unresolved tag/.test(w.message)) yield { kind: 'warning', message: `YAML: ${w.message}` };
    const value: unknown = doc.toJS({ maxAliasCount: 100 });
    if (value === null || value === undefined) continue;
    yield { kind: 'record', record: { value, line, index: index++ } };
  }
}
