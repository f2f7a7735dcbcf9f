/**
 * A dataset folder the Hugging Face Hub understands (decision 073): each layout as Parquet part files, one folder per
 * split (`<layout>/<split>/…`, partitioned and cut as the part-file export does), a README.md dataset card whose
 * `configs` name them, optionally the curated trajectories as Session Trace Simple Format files (`sessions/`), and a
 * `_manifest.json` that lists every file (the folder rule: a later export may replace only what one of ours wrote).
 * The page writes it through its part-file export into a picked folder or a zip; the CLI through its own COPY export.
 */
import type { DatasetLayout, ExportDatasetOptions, Exporter, TokenExportReport } from '../contract/reports';
import { datasetSql, problemsSql, resolveLayoutOptions, selection } from '../export/layouts';
import { MANIFEST_FILE, ownedFilesManifest } from '../export/part-folder';
import { directorySink, exportParts, newFolderName, type PartSink, type PartsOptions, zipSink } from '../export/parts';
import { sqlString } from '../pool/sql';
import { type CardConfig, type CardInput, datasetCard } from './dataset-card';
import { STS_HARNESS, sessionFileName, stsLines } from './sts';

export const HUB_LAYOUTS: readonly DatasetLayout[] = ['sft', 'rl_steps', 'verl_prompts', 'dpo', 'steps'];

/** Everything `exportDatasetParts` takes for one layout, for several, plus the card and the sessions. */
export interface HubDatasetOptions extends Omit<ExportDatasetOptions, 'layout' | 'format' | 'split' | 'onTokens'>, PartsOptions {
  /** One configuration per layout (default `['sft']`); `layout` alone is taken too. */
  layouts?: DatasetLayout[];
  layout?: DatasetLayout;
  /** `'sts'`: the curated trajectories as Session Trace Simple Format files, one per trajectory, under `sessions/`. */
  sessions?: 'sts' | false;
  /** The card's license (an SPDX-style id the Hub knows, e.g. `cc-by-4.0`; default `other`). */
  license?: string;
  /** The card's title (default: the layouts' names). */
  title?: string;
  tags?: string[];
  /** The curation recipe for the card: SQL (a notebook's cells). */
  recipe?: string | null;
}

export interface HubDatasetFile {
  path: string;
  rows: number;
  bytes: number;
}

export interface HubDatasetReport {
  folder: string;
  configs: CardConfig[];
  sessions: number;
  files: HubDatasetFile[];
  /** The card as written. */
  readme: string;
  tokens?: TokenExportReport[];
}

type Rows = (sql: string) => Promise<Record<string, unknown>[]>;

/** What the page or the CLI provides. Paths are relative to the dataset folder, `/`-separated. */
export interface HubDatasetDeps {
  rows: Rows;
  /** Write one layout's rows (its `where` selects one split) as part files into `dir`; the files written. */
  writeLayout(opts: ExportDatasetOptions, parts: PartsOptions, dir: string): Promise<{ files: HubDatasetFile[]; tokens?: TokenExportReport[] }>;
  /** Write one file (the card, a session, the manifest). */
  write(path: string, blob: Blob): Promise<void>;
  /** The active tokenizer's name, for the card's token statistics (null: none). */
  tokenizer?: () => string | null;
}

export class HubDatasetError extends Error {
  override name = 'HubDatasetError';
}

/** The Hub's name for a split value: `val` is `validation`; a name must be word characters (`\w+(\.\w+)*`). */
export function hubSplitName(value: string): string {
  if (value === 'val') return 'validation';
  return value.replace(/[^\w.]+/g, '_').replace(/^\.+|\.+$/g, '').replace(/\.{2,}/g, '.') || 'unnamed';
}

const and = (...preds: (string | null | undefined)[]) => {
  const ps = preds.filter((p): p is string => !!p?.trim());
  return ps.length ? ps.map((p) => `(${p})`).join(' AND ') : undefined;
};

function layoutsOf(opts: HubDatasetOptions): DatasetLayout[] {
  const layouts = opts.layouts?.length ? opts.layouts : opts.layout ? [opts.layout] : ['sft' as DatasetLayout];
  const bad = layouts.filter((l) => !HUB_LAYOUTS.includes(l));
  if (bad.length) throw new HubDatasetError(`Not a layout: ${bad.join(', ')}. Choose from ${HUB_LAYOUTS.join(', ')}.`);
  if (new Set(layouts).size !== layouts.length) throw new HubDatasetError(`A layout is named twice: ${layouts.join(', ')}.`);
  return layouts;
}

/** Trajectories per chunk when writing sessions: the sft rows of one chunk are in memory at once. */
const SESSION_CHUNK = 500;

export async function exportHubDataset(deps: HubDatasetDeps, opts: HubDatasetOptions, folder: string): Promise<HubDatasetReport> {
  const layouts = layoutsOf(opts);
  const { layouts: _l, layout: _one, sessions, license, title, tags, recipe, partitionBy, maxFileBytes, signal, onProgress, ...rest } = opts;
  const base = { ...rest, signal, onProgress };
  // a step's split (NULL: train), over `steps s` / `curation c` for a layout's filter and over the selection's columns
  const byChannel = opts.splitColumn === 'channel';
  const splitExpr = byChannel ? "coalesce(s.channel, 'train')" : "coalesce(c.split, s.channel, 'train')";
  const sel = selection({ ...rest });
  // the splits of the selected steps, each a folder per layout; two values may not share a Hub split name
  const splitRows = await deps.rows(`SELECT ${byChannel ? "coalesce(channel, 'train')" : "coalesce(split, channel, 'train')"} AS v, count(*) AS n FROM (${sel}) GROUP BY ALL ORDER BY v`);
  const splits = splitRows.map((r) => ({ value: String(r.v), name: hubSplitName(String(r.v)) }));
  const names = new Map<string, string>();
  for (const s of splits) {
    const other = names.get(s.name);
    if (other !== undefined) throw new HubDatasetError(`The splits ${JSON.stringify(other)} and ${JSON.stringify(s.value)} would both be the Hub's split "${s.name}": rename one (curation.split) before publishing.`);
    names.set(s.name, s.value);
  }
  if (!splits.length) throw new HubDatasetError('No steps are selected: nothing to publish. Check the filter, or whether the steps are trainable.');

  const files: HubDatasetFile[] = [];
  const tokens: TokenExportReport[] = [];
  const configs: CardConfig[] = [];
  for (const layout of layouts) {
    const cfg: CardConfig = { name: layout, splits: [], leftOut: [] };
    for (const s of splits) {
      signal?.throwIfAborted();
      const where = and(opts.where, `${splitExpr} = ${sqlString(s.value)}`);
      const dir = `${layout}/${s.name}`;
      const wrote = await deps.writeLayout({ ...base, layout, format: 'parquet', where }, { partitionBy, maxFileBytes }, dir);
      if (wrote.tokens) tokens.push(...wrote.tokens);
      const parquet = wrote.files.filter((f) => f.path.endsWith('.parquet'));
      files.push(...wrote.files);
      const rows = parquet.reduce((a, f) => a + f.rows, 0);
      // a split this layout has no row of (a dpo without pairs in val) is no split of its config
      if (!rows) continue;
      const nested = parquet.some((f) => f.path.slice(dir.length + 1).includes('/'));
      cfg.splits.push({ split: s.name, from: s.value, path: `${dir}/${nested ? '**/' : ''}*.parquet`, rows, files: parquet.length, bytes: parquet.reduce((a, f) => a + f.bytes, 0) });
    }
    if (layout !== 'steps' && opts.validOnly !== false) {
      const left = await deps.rows(problemsSql(await resolveLayoutOptions(deps.rows, { ...rest, layout })));
      cfg.leftOut = left.map((r) => ({ reason: String(r.problem), n: Number(r.n) }));
    }
    if (!cfg.splits.length) throw new HubDatasetError(`The ${layout} layout has no row for the selected steps${cfg.leftOut.length ? ` (left out: ${cfg.leftOut.map((l) => `${l.n} × ${l.reason}`).join(', ')})` : ''}: leave it out, or select other steps.`);
    configs.push(cfg);
  }

  let sessionFiles = 0;
  if (sessions === 'sts') sessionFiles = await writeSessions(deps, rest, files);

  const card = await cardInput(deps, opts, layouts, configs, sessionFiles);
  const readme = datasetCard(card);
  const readmeBlob = new Blob([readme], { type: 'text/markdown' });
  await deps.write('README.md', readmeBlob);
  files.push({ path: 'README.md', rows: 0, bytes: readmeBlob.size });
  // the folder rule: every file listed, so a later export may replace exactly these (claimFolder)
  const manifest = ownedFilesManifest({ command: 'hub-dataset', layouts, configs: configs.map((c) => ({ name: c.name, splits: c.splits })), sessions: sessionFiles }, files.map((f) => ({ path: f.path, bytes: f.bytes })));
  await deps.write(MANIFEST_FILE, new Blob([JSON.stringify(manifest, null, 2)], { type: 'application/json' }));
  return { folder, configs, sessions: sessionFiles, files, readme, ...(tokens.length ? { tokens } : {}) };
}

/** The curated trajectories (their sft rows: checks and redaction applied) as STS files under `sessions/`. */
async function writeSessions(deps: HubDatasetDeps, opts: Omit<ExportDatasetOptions, 'layout' | 'format'>, files: HubDatasetFile[]): Promise<number> {
  const sft = await resolveLayoutOptions(deps.rows, { ...opts, layout: 'sft', sftPer: 'trajectory', tokens: false });
  const all = datasetSql(sft);
  const [{ n }] = await deps.rows(`SELECT count(*) AS n FROM (${all})`);
  const chunks = Math.max(1, Math.ceil(Number(n) / SESSION_CHUNK));
  const taken = new Set<string>();
  let written = 0;
  for (let k = 0; k < chunks; k++) {
    opts.signal?.throwIfAborted();
    const rows = await deps.rows(`SELECT * FROM (${all}) WHERE hash(trajectory_uid) % ${chunks} = ${k} ORDER BY trajectory_uid`);
    for (const r of rows) {
      const path = `sessions/${sessionFileName(String(r.trajectory_uid), taken)}`;
      const blob = new Blob([`${stsLines(r).join('\n')}\n`], { type: 'application/x-ndjson' });
      await deps.write(path, blob);
      files.push({ path, rows: 1, bytes: blob.size });
      written++;
    }
  }
  return written;
}

async function cardInput(deps: HubDatasetDeps, opts: HubDatasetOptions, layouts: DatasetLayout[], configs: CardConfig[], sessions: number): Promise<CardInput> {
  const { layouts: _l, layout: _one, sessions: _s, license, title, tags, recipe, partitionBy: _p, maxFileBytes: _m, signal: _sig, onProgress: _op, ...rest } = opts;
  const sel = selection(rest);
  const formats = await deps.rows(`SELECT coalesce(source_format, 'unknown') AS f, count(*) AS steps, count(DISTINCT trajectory_uid) AS trajectories FROM (${sel}) GROUP BY ALL ORDER BY steps DESC, f`);
  const [m] = await deps.rows(
    `SELECT count(*) AS n, count(*) FILTER (WHERE NOT trainable) AS untrainable, count(*) FILTER (WHERE quality = 'bad') AS bad FROM (${selection({ ...rest, trainableOnly: false })})`,
  );
  let redaction: CardInput['redaction'] = null;
  if (opts.redact) {
    const [r] = await deps.rows(
      `SELECT count(*) FILTER (WHERE len(k) > 0) AS steps, count(*) FILTER (WHERE list_contains(k, 'email')) AS email, count(*) FILTER (WHERE list_contains(k, 'phone')) AS phone, count(*) FILTER (WHERE list_contains(k, 'secret')) AS secret
       FROM (SELECT pii_kinds(concat_ws(' ', conversation_plain(messages, response), error, raw)) AS k FROM (${selection({ ...rest, redact: false })}))`,
    );
    redaction = { steps: Number(r.steps), kinds: { email: Number(r.email), phone: Number(r.phone), secret: Number(r.secret) } };
  }
  let tokenStats: CardInput['tokens'] = null;
  const tokenizer = deps.tokenizer?.() ?? null;
  if (tokenizer) {
    const [t] = await deps.rows(
      `SELECT count(*) AS steps, coalesce(sum(n_tokens), 0) AS total, coalesce(median(n_tokens), 0) AS median, coalesce(quantile_disc(n_tokens, 0.95), 0) AS p95, coalesce(max(n_tokens), 0) AS max
       FROM token_counts t JOIN (${sel}) s USING (step_id) WHERE t.n_tokens IS NOT NULL`,
    );
    if (Number(t.steps) > 0) tokenStats = { tokenizer, steps: Number(t.steps), total: Number(t.total), median: Number(t.median), p95: Number(t.p95), max: Number(t.max) };
  }
  return {
    title: title?.trim() || `Agent training data: ${layouts.join(', ')}`,
    license: license?.trim() || 'other',
    tags: [...new Set(['agentworld-workbench', ...(sessions ? ['agent-traces'] : []), ...layouts.map((l) => (l === 'dpo' ? 'dpo' : l === 'sft' ? 'sft' : l === 'steps' ? 'agent-steps' : 'reinforcement-learning')), ...(tags ?? [])])],
    configs,
    sourceFormats: formats.map((f) => ({ format: String(f.f), steps: Number(f.steps), trajectories: Number(f.trajectories) })),
    selection: {
      where: opts.where?.trim() || null,
      stepsMatched: Number(m.n),
      notTrainable: Number(m.untrainable),
      markedBad: Number(m.bad),
      trainableOnly: opts.trainableOnly !== false,
      validOnly: opts.validOnly !== false,
      splitColumn: opts.splitColumn === 'channel' ? 'channel' : 'split',
    },
    recipe: recipe ?? null,
    redaction,
    tokens: tokenStats,
    sessions: sessions ? { files: sessions, harness: STS_HARNESS, path: 'sessions/' } : null,
    createdAt: new Date().toISOString(),
  };
}

/**
 * The page's dataset folder: the part-file export (src/export/parts.ts) per layout and split, into a new sub-folder of
 * `target` (a picked folder or OPFS; nothing there is replaced) or, without one, into a zip that is returned.
 */
export async function exportHubDatasetTo(
  deps: { exporter: Exporter; rows: Rows; tokenizer?: () => string | null },
  opts: HubDatasetOptions,
  target?: FileSystemDirectoryHandle | null,
): Promise<HubDatasetReport & { zip?: Blob }> {
  const stem = `hub-dataset-${new Date().toISOString().slice(0, 19).replaceAll(':', '').replace('T', '-')}`;
  const folder = target ? await newFolderName(target, stem) : stem;
  const zip = target ? null : zipSink();
  const sink: PartSink = target ? directorySink(target) : zip!.sink;
  const report = await exportHubDataset(
    {
      rows: deps.rows,
      async writeLayout(o, parts, dir) {
        const r = await exportParts({ exporter: deps.exporter, rows: deps.rows }, o, parts, sink, `${folder}/${dir}`);
        return { files: r.files.map((f) => ({ path: f.path.slice(folder.length + 1), rows: f.rows, bytes: f.bytes })), tokens: r.tokens };
      },
      write: (path, blob) => sink(`${folder}/${path}`, blob),
      tokenizer: deps.tokenizer,
    },
    opts,
    folder,
  );
  return zip ? { ...report, zip: zip.finish() } : report;
}
