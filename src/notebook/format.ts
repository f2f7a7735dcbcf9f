/**
 * Notebook file format: Markdown with YAML front matter and fenced
 * ```sql / ```plot cells. serialize(parse(text)) === text for every file serialize wrote: blocks
 * are separated by one blank line and the file ends with one newline.
 */
import { parseDocument } from 'yaml';
import { type Cell, type CellKind, type CellOptions, makeCell, type NotebookDoc } from './model';

const FENCE_OPEN = /^(`{3,}|~{3,})[ \t]*([^\s`]*)(.*)$/;
const CELL_LANGS: Record<string, CellKind> = { sql: 'sql', plot: 'plot' };

export function parseFenceOptions(info: string): CellOptions {
  const opts: CellOptions = {};
  const re = /([A-Za-z_][\w-]*)(?:=("(?:[^"\\]|\\.)*"|'[^']*'|[^\s]*))?/g;
  for (const m of info.matchAll(re)) {
    const key = m[1].toLowerCase() === m[1] || ['id', 'hidden', 'effect', 'run'].includes(m[1].toLowerCase()) ? m[1].toLowerCase() : m[1];
    let value: string | true = m[2] === undefined ? true : m[2];
    if (typeof value === 'string' && /^["']/.test(value)) value = value.slice(1, -1).replace(/\\(.)/g, '$1');
    if (key === 'id' && typeof value === 'string') opts.id = value;
    else if (key === 'hidden' && (value === true || value === 'true')) opts.hidden = true;
    else if (key === 'effect' && (value === true || value === 'true')) opts.effect = true;
    else if (key === 'run' && (value === 'false' || value === 'true')) opts.run = value === 'true';
    else (opts.extra ??= []).push([key, value]);
  }
  return opts;
}

function quoteValue(v: string): string {
  return /^[^\s"'=`]+$/.test(v) ? v : `"${v.replace(/["\\]/g, '\\$&')}"`;
}

export function serializeFenceOptions(o: CellOptions): string {
  const parts: string[] = [];
  if (o.id) parts.push(`id=${quoteValue(o.id)}`);
  if (o.effect) parts.push('effect');
  if (o.hidden) parts.push('hidden');
  if (o.run === false) parts.push('run=false');
  for (const [k, v] of o.extra ?? []) parts.push(v === true ? k : `${k}=${quoteValue(v)}`);
  return parts.join(' ');
}

function isClose(line: string, fence: string): boolean {
  const t = line.trimEnd();
  return t.length >= fence.length && t[0] === fence[0] && /^(`+|~+)$/.test(t);
}

function trimBlankLines(lines: string[]): string {
  let a = 0;
  let b = lines.length;
  while (a < b && lines[a].trim() === '') a++;
  while (b > a && lines[b - 1].trim() === '') b--;
  return lines.slice(a, b).join('\n');
}

export function parseNotebook(text: string): NotebookDoc {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let i = 0;
  let frontMatter = '';
  if (lines[0] === '---') {
    const end = lines.indexOf('---', 1);
    if (end > 0) {
      frontMatter = lines.slice(1, end).join('\n');
      i = end + 1;
    }
  }
  const cells: Cell[] = [];
  let md: string[] = [];
  const flushMd = () => {
    const src = trimBlankLines(md);
    if (src) cells.push(makeCell('md', src));
    md = [];
  };
  while (i < lines.length) {
    const line = lines[i];
    const m = FENCE_OPEN.exec(line);
    if (!m || (m[1][0] === '`' && m[3].includes('`'))) {
      md.push(line);
      i++;
      continue;
    }
    const fence = m[1];
    const kind = CELL_LANGS[m[2].toLowerCase()];
    let j = i + 1;
    while (j < lines.length && !isClose(lines[j], fence)) j++;
    const body = lines.slice(i + 1, j);
    if (!kind) {
      // Any other fenced block (```python, ````md …) is Markdown content: keep it whole so a
      // ```sql inside it is not mistaken for a cell.
      md.push(...lines.slice(i, Math.min(j + 1, lines.length)));
    } else {
      flushMd();
      cells.push(makeCell(kind, body.join('\n'), parseFenceOptions(m[3])));
    }
    i = j + 1;
  }
  flushMd();
  return { frontMatter, cells };
}

function fenceFor(source: string): string {
  let longest = 0;
  for (const m of source.matchAll(/^`{3,}/gm)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

export function serializeCell(c: Cell): string {
  if (c.kind === 'md') return c.source.replace(/^\s*\n|\s+$/g, '');
  const fence = fenceFor(c.source);
  const opts = serializeFenceOptions(c.options);
  return `${fence}${c.kind}${opts ? ` ${opts}` : ''}\n${c.source.replace(/\n+$/, '')}${c.source.trim() ? '\n' : ''}${fence}`;
}

export function serializeNotebook(doc: NotebookDoc): string {
  const blocks: string[] = [];
  const fm = doc.frontMatter.replace(/\n+$/, '');
  if (fm) blocks.push(`---\n${fm}\n---`);
  for (const c of doc.cells) {
    const s = serializeCell(c);
    if (s) blocks.push(s);
  }
  return `${blocks.join('\n\n')}\n`;
}

export function notebookTitle(doc: NotebookDoc, fallback = 'Untitled notebook'): string {
  if (!doc.frontMatter) return firstHeading(doc) ?? fallback;
  try {
    const t = parseDocument(doc.frontMatter).get('title');
    if (typeof t === 'string' && t.trim()) return t.trim();
  } catch {
    /* unreadable front matter: fall back */
  }
  return firstHeading(doc) ?? fallback;
}

function firstHeading(doc: NotebookDoc): string | null {
  for (const c of doc.cells) {
    if (c.kind !== 'md') continue;
    const m = /^#{1,6}\s+(.+)$/m.exec(c.source);
    if (m) return m[1].trim();
  }
  return null;
}

/** Set the front matter's title, keeping the rest of it (and its comments) as written. */
export function withTitle(doc: NotebookDoc, title: string): NotebookDoc {
  const y = parseDocument(doc.frontMatter || '');
  y.set('title', title);
  return { ...doc, frontMatter: String(y).replace(/\n+$/, '') };
}
