/** Plain-text renderings of result values: compact for a table cell, indented for the detail view. */

function num(n: number): string {
  if (Number.isInteger(n) || !Number.isFinite(n)) return String(n);
  const a = Math.abs(n);
  return a !== 0 && (a < 1e-4 || a >= 1e15) ? n.toExponential(4) : String(Number(n.toPrecision(8)));
}

function scalar(v: unknown): string {
  if (v === null || v === undefined) return '∅';
  if (typeof v === 'number') return num(v);
  if (typeof v === 'string') return v;
  if (v instanceof Date) return v.toISOString();
  return String(v);
}

export function isNested(v: unknown): boolean {
  return v !== null && typeof v === 'object' && !(v instanceof Date);
}

/** One line, cut at `max` characters: lists as [n] a, b …; structs as {k: v, …}; null fields left out. */
export function compactText(v: unknown, max = 160): string {
  let out = '';
  const walk = (x: unknown, depth: number): boolean => {
    if (out.length > max) return false;
    if (Array.isArray(x)) {
      out += `[${x.length}] `;
      for (let i = 0; i < x.length; i++) {
        if (i) out += ', ';
        if (depth > 2) {
          out += '…';
          break;
        }
        if (!walk(x[i], depth + 1)) return false;
      }
      return true;
    }
    if (isNested(x)) {
      out += '{';
      let first = true;
      for (const [k, val] of Object.entries(x as object)) {
        if (val === null || val === undefined) continue;
        if (!first) out += ', ';
        first = false;
        out += `${k}: `;
        if (!walk(val, depth + 1)) return false;
      }
      out += '}';
      return true;
    }
    out += typeof x === 'string' ? x.replace(/\s+/g, ' ') : scalar(x);
    return out.length <= max;
  };
  walk(v, 0);
  return out.length > max ? `${out.slice(0, max)}…` : out;
}

/** Indented, every value in full (the detail view of a nested value). */
export function fullText(v: unknown, indent = ''): string {
  if (Array.isArray(v)) {
    if (!v.length) return '[]';
    return v.map((x, i) => `${indent}[${i}] ${fullText(x, `${indent}    `).trimStart()}`).join('\n');
  }
  if (isNested(v)) {
    const entries = Object.entries(v as object).filter(([, x]) => x !== null && x !== undefined);
    if (!entries.length) return '{}';
    return entries
      .map(([k, x]) => (isNested(x) ? `${indent}${k}:\n${fullText(x, `${indent}  `)}` : `${indent}${k}: ${scalar(x).replace(/\n/g, `\n${indent}  `)}`))
      .join('\n');
  }
  return indent + scalar(v);
}

export function cellText(v: unknown): string {
  return isNested(v) ? compactText(v) : scalar(v);
}

/** Tab-separated text of rows (for the clipboard). */
export function toTsv(columns: string[], rows: unknown[][]): string {
  const esc = (v: unknown) => (isNested(v) ? JSON.stringify(v) : v === null || v === undefined ? '' : scalar(v)).replace(/[\t\n\r]/g, ' ');
  return [columns.join('\t'), ...rows.map((r) => r.map(esc).join('\t'))].join('\n');
}
