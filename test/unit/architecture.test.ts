/**
 * The import direction of docs/architecture.md, checked: every import under src/ and workers/
 * (`import type`, re-exports and dynamic `import()` included) may only point at a folder its own
 * folder is allowed to use, and no two folders may depend on each other, directly or round a loop.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * Which folders each folder may import (its own always). Read top-down it is the flow:
 * contract ← wire / record ← capture / import ← pool ← notebook / curation / export ← views ← app.
 */
export const ALLOWED: Record<string, readonly string[]> = {
  contract: [],
  util: ['contract'],
  wire: ['contract'],
  /** What capture and import both do to a step record: its Arrow encoding, secret redaction, prompt ids. */
  record: ['contract', 'util'],
  pool: ['contract', 'util'],
  ingest: ['contract', 'util', 'wire', 'record', 'pool'],
  export: ['contract', 'util', 'pool', 'tokenizer'],
  curation: ['contract', 'util', 'pool'],
  tokenizer: ['contract', 'util', 'pool'],
  notebook: ['contract', 'util', 'pool'],
  hub: ['contract', 'util', 'pool', 'notebook', 'export'],
  'gateway/core': ['contract', 'util', 'wire', 'record'],
  'gateway/sw': ['contract', 'util', 'wire', 'gateway/core'],
  'gateway/page': ['contract', 'util', 'wire', 'record', 'pool', 'gateway/core'],
  agents: ['contract', 'util', 'wire', 'gateway/core', 'gateway/page'],
  views: ['contract', 'util', 'wire', 'record', 'pool', 'ingest', 'export', 'curation', 'tokenizer', 'notebook', 'hub', 'gateway/core', 'gateway/page', 'agents'],
  app: ['contract', 'util', 'wire', 'record', 'pool', 'ingest', 'export', 'curation', 'tokenizer', 'notebook', 'hub', 'gateway/core', 'gateway/page', 'agents', 'views'],
  /** The headless CLI (`npx agentworld`): the page's stages on native DuckDB, never the UI. */
  cli: ['contract', 'util', 'wire', 'record', 'pool', 'ingest', 'export', 'curation', 'tokenizer', 'notebook', 'hub'],
  /** src/main.ts and src/assets.ts: the boot, which wires everything. */
  main: ['contract', 'util', 'wire', 'record', 'pool', 'ingest', 'export', 'curation', 'tokenizer', 'notebook', 'hub', 'gateway/core', 'gateway/page', 'agents', 'views', 'app'],
  /** Worker entry points: the engine side of a folder (a worker never imports the UI). */
  workers: ['contract', 'util', 'wire', 'record', 'pool', 'ingest', 'export', 'curation', 'tokenizer', 'notebook', 'hub', 'gateway/core', 'gateway/page', 'agents', 'main'],
};

export interface Edge {
  file: string;
  spec: string;
  from: string;
  to: string;
  typeOnly: boolean;
}

/** The folder a file belongs to (`gateway` is split by runtime: core, sw, page). */
export function folderOf(file: string): string | null {
  const parts = relative(ROOT, file).split('/');
  if (parts[0] === 'workers') return 'workers';
  if (parts[0] !== 'src') return null;
  if (parts.length === 2) return 'main';
  if (parts[1] === 'gateway') return parts.length > 3 ? `gateway/${parts[2]}` : 'gateway';
  return parts[1];
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? walk(p) : /\.(ts|mts|js|mjs)$/.test(f) ? [p] : [];
  });
}

function resolveSpec(from: string, spec: string): string | null {
  const base = resolve(dirname(from), spec.replace(/\?.*$/, ''));
  for (const cand of [base, `${base}.ts`, `${base}.mjs`, `${base}.js`, join(base, 'index.ts')]) if (existsSync(cand) && statSync(cand).isFile()) return cand;
  return null;
}

// `import x from`, `import type {…} from`, `export {…} from`, `export * from`, side-effect `import '…'`, and `import('…')`
const STATIC = /^\s*(import|export)(\s+type)?[\w\s{},*$]*?\bfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]/gm;
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;
const TYPE_NAMES = /^\s*import\s*\{([^}]*)\}/;

/** Every relative import of a source text, with whether it is erased at run time (`import type`, or only `type` names). */
export function importsOf(text: string): { spec: string; typeOnly: boolean }[] {
  const out: { spec: string; typeOnly: boolean }[] = [];
  for (const m of text.matchAll(STATIC)) {
    const spec = m[3] ?? m[4];
    const names = TYPE_NAMES.exec(m[0])?.[1];
    const allTypes = !!names && names.split(',').every((n) => !n.trim() || /^type\s/.test(n.trim()));
    out.push({ spec, typeOnly: !!m[2] || allTypes });
  }
  for (const m of text.matchAll(DYNAMIC)) out.push({ spec: m[1], typeOnly: /typeof\s*$|[:<,|]\s*$/.test(text.slice(Math.max(0, m.index - 12), m.index)) });
  return out.filter((i) => i.spec.startsWith('.'));
}

export function edgesOf(files: readonly string[]): Edge[] {
  const edges: Edge[] = [];
  for (const file of files) {
    const from = folderOf(file);
    if (!from) continue;
    for (const { spec, typeOnly } of importsOf(readFileSync(file, 'utf8'))) {
      const target = resolveSpec(file, spec);
      assert.ok(target, `${relative(ROOT, file)}: cannot resolve '${spec}'`);
      const to = folderOf(target);
      if (to && to !== from) edges.push({ file: relative(ROOT, file), spec, from, to, typeOnly });
    }
  }
  return edges;
}

export function violations(edges: readonly Edge[]): string[] {
  const out: string[] = [];
  for (const e of edges) {
    const allowed = ALLOWED[e.from];
    if (!allowed) out.push(`${e.file}: folder '${e.from}' is not in the architecture table (docs/architecture.md)`);
    else if (!allowed.includes(e.to)) out.push(`${e.file}: ${e.from} → ${e.to} ('${e.spec}'${e.typeOnly ? ', type only' : ''}) goes against the import direction`);
  }
  return out;
}

/** Cycles of a directed graph (each as `a → b → … → a`), by depth-first search. */
export function graphCycles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const out: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (n: string) => {
    state.set(n, 'open');
    stack.push(n);
    for (const m of [...(graph.get(n) ?? [])].sort()) {
      if (state.get(m) === 'open') out.push([...stack.slice(stack.indexOf(m)), m].join(' → '));
      else if (!state.has(m)) visit(m);
    }
    stack.pop();
    state.set(n, 'done');
  };
  for (const n of [...graph.keys()].sort()) if (!state.has(n)) visit(n);
  return out;
}

/** Folder cycles, over the folder graph. */
export function cycles(edges: readonly Edge[]): string[] {
  const graph = new Map<string, Set<string>>();
  for (const e of edges) graph.set(e.from, (graph.get(e.from) ?? new Set()).add(e.to));
  return graphCycles(graph);
}

/** The file graph: every file → the files it imports, type imports included (a type in the wrong file is a loop of the design, if not of the run). */
export function fileGraph(files: readonly string[]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const to = new Set<string>();
    for (const { spec } of importsOf(readFileSync(file, 'utf8'))) {
      const target = resolveSpec(file, spec);
      if (target) to.add(relative(ROOT, target));
    }
    graph.set(relative(ROOT, file), to);
  }
  return graph;
}

const FILES = [...walk(join(ROOT, 'src')), ...walk(join(ROOT, 'workers'))];

describe('architecture: the import direction of docs/architecture.md', () => {
  const edges = edgesOf(FILES);

  it('reads every kind of import (a parser that saw nothing would pass everything)', () => {
    assert.ok(FILES.length > 150, `${FILES.length} source files`);
    const seen = (from: string, to: string, typeOnly?: boolean) => edges.some((e) => e.from === from && e.to === to && (typeOnly === undefined || e.typeOnly === typeOnly));
    assert.ok(seen('main', 'app'), 'side-effect and value imports');
    assert.ok(seen('ingest', 'contract', true), '`import type`');
    assert.deepEqual(importsOf("import {\n  a,\n  type B,\n} from './x';\nexport * from '../y';\nimport './z';\nconst m = await import('../w');\nlet t: import('../v').T;"), [
      { spec: './x', typeOnly: false },
      { spec: '../y', typeOnly: false },
      { spec: './z', typeOnly: false },
      { spec: '../w', typeOnly: false },
      { spec: '../v', typeOnly: true },
    ]);
    assert.deepEqual(importsOf("import { type A, type B } from './x';"), [{ spec: './x', typeOnly: true }]);
  });

  it('every folder is in the table', () => {
    const folders = new Set(FILES.map(folderOf));
    for (const f of folders) assert.ok(f && ALLOWED[f], `folder '${f}' has no entry in ALLOWED (and docs/architecture.md)`);
  });

  it('no import goes against the direction', () => {
    assert.deepEqual(violations(edges), []);
  });

  it('no two folders depend on each other, directly or round a loop (type imports counted)', () => {
    assert.deepEqual(cycles(edges), []);
  });

  it('no two files import each other, directly or round a loop (type imports counted)', () => {
    assert.deepEqual(graphCycles(fileGraph(FILES)), []);
  });

  it('a worker entry only hosts: it exports nothing (its protocol is its folder\'s api.ts), and nothing imports it', () => {
    const entries = FILES.filter((f) => folderOf(f) === 'workers');
    assert.ok(entries.length >= 7);
    for (const f of entries) assert.doesNotMatch(readFileSync(f, 'utf8'), /^export\s/m, `${relative(ROOT, f)} exports: its protocol belongs in its folder's api.ts`);
    assert.deepEqual(edges.filter((e) => e.to === 'workers').map((e) => `${e.file} → ${e.spec}`), []);
  });

  it('capture and import are two sources side by side: no gateway folder may import ingest, nor ingest the gateway (decision 084)', () => {
    const gateway = Object.keys(ALLOWED).filter((f) => f.startsWith('gateway/'));
    assert.deepEqual(gateway.filter((g) => ALLOWED[g]?.includes('ingest')), []);
    assert.deepEqual(ALLOWED.ingest?.filter((f) => f.startsWith('gateway')), []);
    assert.deepEqual(edges.filter((e) => (e.from.startsWith('gateway') && e.to === 'ingest') || (e.from === 'ingest' && e.to.startsWith('gateway'))).map((e) => e.file), []);
  });

  it('the checks catch what they are for', () => {
    const bad: Edge[] = [
      { file: 'src/ingest/x.ts', spec: '../../app/aw-app', from: 'ingest', to: 'app', typeOnly: true },
      { file: 'src/app/y.ts', spec: '../ingest/z', from: 'app', to: 'ingest', typeOnly: false },
    ];
    assert.equal(violations(bad).length, 1);
    assert.deepEqual(cycles(bad), ['app → ingest → app']);
    assert.deepEqual(graphCycles(new Map([['a', new Set(['b'])], ['b', new Set(['c'])], ['c', new Set(['a'])], ['d', new Set(['a'])]])), ['a → b → c → a']);
  });
});

/** A string or template literal that starts with a SQL statement (after blanks), anywhere in the text. */
export function sqlLiterals(text: string): string[] {
  return [...text.matchAll(/[`'"]\s*((?:SELECT|WITH|INSERT|UPDATE|DELETE|CREATE|DROP|COPY|ATTACH)\s[^`'"\n]{0,60})/g)].map((m) => m[1]);
}

/**
 * Hand-rolled quoting: a quote character replaced by itself doubled (`replaceAll("'", "''")`, `.replace(/"/g, '""')`),
 * the way a SQL literal or identifier is escaped. SQL is quoted by src/pool/sql.ts only (sqlString, sqlIdent, sqlName).
 */
export function handQuotes(text: string): string[] {
  const value = (arg: string): string | null => {
    const a = arg.trim();
    const re = /^\/(.)\/g$/.exec(a);
    if (re) return re[1] as string;
    const lit = /^(['"`])(.*)\1$/.exec(a);
    return lit ? (lit[2] as string).replace(/\\(.)/g, '$1') : null;
  };
  return [...text.matchAll(/\.replace(?:All)?\(\s*([^,()]{1,8}),([^,()]{1,12})\)/g)].flatMap((m) => {
    const [from, to] = [value(m[1] as string), value(m[2] as string)];
    return (from === "'" || from === '"') && to === from + from ? [m[0]] : [];
  });
}

/** Files that double a quote character for something that is not SQL. */
const NOT_SQL_QUOTING: Record<string, string> = {
  'src/pool/sql.ts': 'the one SQL-quoting helper',
  'src/export/encode.ts': 'CSV fields (RFC 4180)',
};

/** Hex colours inside lit `css` blocks (Plot's mark colours are SVG attributes, where var() does not resolve, and are left). */
export function hexInStyles(text: string): string[] {
  return [...text.matchAll(/css`[^`]*`/g)].flatMap((m) => m[0].match(/#[0-9a-fA-F]{3,8}\b/g) ?? []);
}

/** A pool call (rows, query, exec, …) handed SQL text written in place, a string or template literal. */
export function inlinePoolCalls(text: string): string[] {
  return [...text.matchAll(/\.(?:rows|query|queryIPC|queryReadOnly|exec|execOne)\(\s*([`'"][^`'"\n]{0,60})/g)].map((m) => m[1]);
}

/**
 * A listener handed to a change feed by hand: `x.onChange(fn)` (a call with no argument, a callback firing, is not one).
 * Views re-read the pool through PoolQueryController (views/kit/pool-refresh.ts), which alone subscribes.
 */
export function changeListeners(text: string): string[] {
  return [...text.matchAll(/\.onChange\(\s*[^\s)][^\n]{0,40}/g)].map((m) => m[0]);
}

/** Where SQL text may be written in views/ and app/: a screen folder's queries module, beside the elements that run it. */
const SCREEN_QUERIES = /^src\/views\/[^/]+\/queries\.ts$/;


describe('architecture: the rules of docs/architecture.md a grep can check', () => {
  it("no SQL inside an element: a screen's SQL lives in its folder's queries.ts (views/<screen>/queries.ts), the shared selections in pool/queries", () => {
    const found = FILES.filter((f) => /^src\/(views|app)\//.test(relative(ROOT, f)) && !SCREEN_QUERIES.test(relative(ROOT, f))).flatMap((f) => {
      const text = readFileSync(f, 'utf8');
      return [...sqlLiterals(text), ...inlinePoolCalls(text)].map((s) => `${relative(ROOT, f)}: ${s}`);
    });
    assert.deepEqual(found, []);
  });

  it('element styles take their colours from the shared --aw-* variables (views/kit/styles.ts, app/theme.css), no hex literals', () => {
    const found = FILES.filter((f) => /^src\/(views|app)\//.test(relative(ROOT, f)) && !f.endsWith('kit/styles.ts')).flatMap((f) =>
      hexInStyles(readFileSync(f, 'utf8')).map((h) => `${relative(ROOT, f)}: ${h}`),
    );
    assert.deepEqual(found, []);
  });

  it('SQL is quoted only by src/pool/sql.ts: no hand-rolled doubling of a quote character elsewhere', () => {
    const found = FILES.filter((f) => !NOT_SQL_QUOTING[relative(ROOT, f)]).flatMap((f) => handQuotes(readFileSync(f, 'utf8')).map((q) => `${relative(ROOT, f)}: ${q}`));
    assert.deepEqual(found, []);
  });

  it('the quoting check sees every spelling of a doubled quote and passes unquoting and other escapes', () => {
    const text = [
      `s.replaceAll("'", "''")`,
      "n.replaceAll('\"', '\"\"')",
      `v.replace(/'/g, "''")`,
      "x.replaceAll(\"'\", `''`)",
      `t.replaceAll("''", "'")`,
      "s.replaceAll(\"'\", `'\\\\''`)",
      `s.replaceAll('<', '&lt;')`,
    ].join('\n');
    assert.deepEqual(handQuotes(text), [`.replaceAll("'", "''")`, ".replaceAll('\"', '\"\"')", `.replace(/'/g, "''")`, ".replaceAll(\"'\", `''`)"]);
  });

  it("no element subscribes to the pool's changes by hand: views re-read through PoolQueryController (views/kit/pool-refresh.ts)", () => {
    const found = FILES.filter((f) => /^src\/views\//.test(relative(ROOT, f)) && !/^src\/views\/kit\//.test(relative(ROOT, f))).flatMap((f) =>
      changeListeners(readFileSync(f, 'utf8')).map((s) => `${relative(ROOT, f)}: ${s}`),
    );
    assert.deepEqual(found, []);
  });

  it('the change-listener check sees a subscription however it is spelled, and passes a callback that fires', () => {
    const text = ['this.off = this.services?.pool.onChange((e) => {', 'pool.onChange(fn);', 'feed.onChange(\n  (e) => x)', 'this.onChange();', "onChange({ inFlight: 1 });", 'onPricesChange(() => 1)'].join('\n');
    assert.deepEqual(changeListeners(text).length, 3);
    assert.match(changeListeners(text)[0] ?? '', /^\.onChange\(\(e\) =>/);
  });

  it('the SQL check sees a query and passes a tag name', () => {
    assert.deepEqual(sqlLiterals("pool.rows(`\n  SELECT count(*) FROM steps`); t.tagName === 'SELECT'"), ['SELECT count(*) FROM steps']);
    assert.deepEqual(inlinePoolCalls("pool.rows(`$" + "{cols} FROM steps`); pool.exec('DETACH x'); pool.rows(sql); pool.query(countOf(q))"), [`\`$` + "{cols} FROM steps", "'DETACH x"]);
    assert.ok(SCREEN_QUERIES.test('src/views/dashboard/queries.ts'));
    assert.ok(!SCREEN_QUERIES.test('src/views/dashboard/aw-dashboard.ts') && !SCREEN_QUERIES.test('src/app/queries.ts') && !SCREEN_QUERIES.test('src/views/a/b/queries.ts'));
  });
});

describe('architecture: the bench and scripts follow the code they measure', () => {
  it("every relative import of a bench/ or scripts/ file names a file that exists (a move in src/ broke `npm run bench` once)", () => {
    const dirs = ['bench', 'scripts'].map((d) => join(ROOT, d)).filter((d) => existsSync(d));
    const missing = dirs.flatMap((d) =>
      readdirSync(d)
        .filter((f) => /\.(mjs|mts|ts|js)$/.test(f))
        .flatMap((f) => {
          const text = readFileSync(join(d, f), 'utf8');
          return [...text.matchAll(/(?:from|import\()\s*['"](\.\.?\/[^'"]+)['"]/g)].flatMap(([, spec]) => {
            const base = resolve(d, spec as string);
            const found = [base, `${base}.ts`, `${base}.mts`, `${base}.mjs`, `${base}.js`, join(base, 'index.ts')].some((p) => existsSync(p) && statSync(p).isFile());
            return found ? [] : [`${relative(ROOT, join(d, f))}: ${spec}`];
          });
        }),
    );
    assert.deepEqual(missing, []);
  });
});

/**
 * Markdown files a text names by path (`docs/x.md`, `decisions/0nn-….md`), and names of documents that live outside the
 * repo. In Markdown only links count (a doc may name another repository's `docs/…` in code spans).
 */
export function docMentions(text: string, markdown = false): { paths: string[]; outside: string[] } {
  if (markdown) {
    const links = [...text.matchAll(/\]\(([^)\s#]+\.md)(?:#[^)]*)?\)/g)].map((m) => m[1] as string).filter((p) => !/^[a-z]+:/.test(p));
    return { paths: links, outside: [...text.matchAll(/\b(DESIGN|STYLE|DEVELOPERS)\.md\b/g)].map((m) => m[0]) };
  }
  const paths = [...text.matchAll(/(?<![\w./-])((?:\.\.?\/)*(?:docs\/)?decisions\/[\w.-]+\.md|(?:\.\.?\/)*docs\/[\w./-]+\.md)/g)].map((m) => m[1] as string);
  const outside = [...text.matchAll(/\b(DESIGN|STYLE|DEVELOPERS)\.md\b/g)].map((m) => m[0]);
  return { paths, outside };
}

describe('architecture: the docs a file cites are in the repo', () => {
  const mdFiles = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(ROOT, 'docs', f));
  const texts = [...FILES, join(ROOT, 'README.md'), ...mdFiles];

  it('every docs/ or decisions/ path a source file, doc or the README names exists', () => {
    assert.ok(mdFiles.length > 20, `${mdFiles.length} docs`);
    const missing = texts.flatMap((f) =>
      docMentions(readFileSync(f, 'utf8'), f.endsWith('.md')).paths.flatMap((p) => {
        const cands = [resolve(dirname(f), p), resolve(ROOT, p), resolve(ROOT, 'docs', p.replace(/^(\.\.?\/)+/, ''))];
        return cands.some((c) => existsSync(c)) ? [] : [`${relative(ROOT, f)}: ${p}`];
      }),
    );
    assert.deepEqual(missing, []);
  });

  it('no file cites a document that is not in the repo (the design notes the project started from live outside it)', () => {
    const found = texts.flatMap((f) => docMentions(readFileSync(f, 'utf8'), f.endsWith('.md')).outside.map((d) => `${relative(ROOT, f)}: ${d}`));
    assert.deepEqual(found, []);
  });

  it('the mention parser sees paths and outside names', () => {
    assert.deepEqual(docMentions('see docs/security.md and [x](decisions/011-a.md), (DESIGN.md "Secrets")'), {
      paths: ['docs/security.md', 'decisions/011-a.md'],
      outside: ['DESIGN.md'],
    });
    assert.deepEqual(docMentions('[a](decisions/011-a.md) and `docs/refs/other-repo.md`, [b](https://x.org/y.md)', true).paths, ['decisions/011-a.md']);
  });
});

/** The `| folder | may import | why |` table of docs/architecture.md, as `ALLOWED` would write it. */
export function docsTable(md: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const m of md.matchAll(/^\| `([\w/]+)` \| ([^|]*) \|/gm)) {
    const cell = (m[2] as string).trim();
    out[m[1] as string] = cell === '—' ? [] : cell.split(',').map((s) => s.trim());
  }
  return out;
}

describe('architecture: docs/architecture.md says what the test enforces', () => {
  it('its folder table equals ALLOWED, row by row', () => {
    assert.deepEqual(docsTable(readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8')), Object.fromEntries(Object.entries(ALLOWED).map(([k, v]) => [k, [...v]])));
  });
});
