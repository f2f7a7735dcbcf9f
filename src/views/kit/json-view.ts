/**
 * JSON text as a foldable tree (each object and array a native <details>: keyboard and screen readers work
 * without script), or as written. Untrusted: every key and value goes through a lit text binding. A value
 * that is not JSON, or too big to lay out as a tree, is shown as text (pretty-printed when it parses).
 */
import { css, html, nothing, type TemplateResult } from 'lit';

/** Above this many nodes a tree is slower to lay out than it is useful: pretty text instead. */
export const MAX_TREE_NODES = 1500;
/** Containers deeper than this start folded. */
const OPEN_DEPTH = 2;

export const jsonStyles = css`
  .json { font: 12px/1.4 var(--aw-mono); background: var(--aw-code-bg); padding: 4px 6px; border-radius: 4px; margin: 2px 0; overflow-wrap: anywhere; }
  .json details { margin-left: 14px; }
  .json > details { margin-left: 0; }
  .json summary { cursor: pointer; color: var(--aw-muted); }
  .json summary::marker { color: var(--aw-muted); }
  .json .kv { margin-left: 14px; white-space: pre-wrap; }
  .json .k { color: var(--aw-json-key); }
  .json .s { color: var(--aw-json-string); }
  .json .n { color: var(--aw-json-number); }
  .json .b { color: var(--aw-json-literal); }
`;

function count(v: unknown, limit: number): number {
  let n = 0;
  const stack = [v];
  while (stack.length && n <= limit) {
    const x = stack.pop();
    n++;
    if (x && typeof x === 'object') stack.push(...Object.values(x as object));
  }
  return n;
}

function leaf(v: unknown): TemplateResult {
  if (typeof v === 'string') return html`<span class="s">${JSON.stringify(v)}</span>`;
  if (typeof v === 'number') return html`<span class="n">${String(v)}</span>`;
  return html`<span class="b">${String(v)}</span>`;
}

function node(key: string | null, v: unknown, depth: number): TemplateResult {
  const k = key === null ? nothing : html`<span class="k">${key}</span>: `;
  if (v === null || typeof v !== 'object') return html`<div class="kv">${k}${leaf(v)}</div>`;
  const arr = Array.isArray(v);
  const entries = Object.entries(v as object);
  if (!entries.length) return html`<div class="kv">${k}${arr ? '[]' : '{}'}</div>`;
  const label = arr ? `[…] ${entries.length} ${entries.length === 1 ? 'item' : 'items'}` : `{…} ${entries.length} ${entries.length === 1 ? 'key' : 'keys'}`;
  return html`<details ?open=${depth < OPEN_DEPTH}><summary>${k}${label}</summary>${entries.map(([ck, cv]) => node(arr ? ck : JSON.stringify(ck), cv, depth + 1))}</details>`;
}

export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  const t = text.trim();
  if (!t || !'{["'.includes(t[0]) || t.length > 1_000_000) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(t) };
  } catch {
    return { ok: false };
  }
}

/**
 * `pretty`: a tree when the text is a JSON object or array of at most MAX_TREE_NODES nodes, else the text
 * re-indented; not pretty: exactly as recorded. `clip` renders plain text (the caller's long-text guard).
 */
export function jsonView(text: string | null | undefined, pretty: boolean, clip: (t: string) => unknown = (t) => t): TemplateResult {
  const t = text ?? '';
  if (!pretty) return html`<pre class="json raw">${clip(t)}</pre>`;
  const parsed = parseJson(t);
  if (!parsed.ok) return html`<pre class="json">${clip(t)}</pre>`;
  const v = parsed.value;
  if (v !== null && typeof v === 'object' && count(v, MAX_TREE_NODES) <= MAX_TREE_NODES) return html`<div class="json tree">${node(null, v, 0)}</div>`;
  return html`<pre class="json">${clip(JSON.stringify(v, null, 2))}</pre>`;
}
