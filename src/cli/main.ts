/**
 * `agentworld` — the workbench headless (issue 22): import, run a notebook, export layouts, on native
 * DuckDB with the page's own pipeline, pool SQL, layouts and notebook runtime. See README "CLI".
 */
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import '../util/arrow-bool-fix';
import type { ImportProgress, ImportReport } from '../contract/reports';
import { EXPORT_FLAGS, ExportFlagError, exportOptions } from '../export/export-flags';
import { claimFolder, MANIFEST_FILE, ownedFilesManifest, PartFolderError } from '../export/part-folder';
import { sqlString } from '../pool/sql';
import type { PartitionColumn } from '../export/parts';
import { inputScope } from './engine-lock';
import { runImport } from './import';
import { exportHubFolder, importHubInputs, isHubInput, recipeText } from './hub';
import { cliRemoteParquet } from './remote-parquet';
import { describeRead } from '../hub/remote-query';
import { formatBytes } from '../util/format-bytes';
import { NativePool } from './native-pool';
import { runNotebook } from './notebook';
import { exportLayout } from './part-files';
import { UsageError, parseSize } from './files';
import { layoutBundle } from './layout-bundle';
import { nodeFolderIo } from './out-folder';
import { mergeShardSteps, writeShardSteps } from './shards';

export { exportLayout };

const HELP = `agentworld — AgentWorld Workbench, headless

  agentworld import <files|folders|globs…> --pool pool.duckdb [--shard i/n] [--format id] [--threads N] [--steps-out DIR] [--json]
                    an input may be a Hugging Face dataset: hf://datasets/<owner>/<name>[@<revision>][/<path>] or its Hub URL
                    (every trace file under it; HF_ENDPOINT and HF_TOKEN as huggingface_hub reads them)
  agentworld merge <shard steps files|globs…> --pool merged.duckdb [--steps-out DIR] [--json]   (shards joined as one import of the listing)
  agentworld run <notebook.md…> --pool pool.duckdb [--allow-effects] [--out DIR] [--read PATH…] [--json]   (several notebooks: in the order given;
                    the cells' SQL reads the pool and the files or folders named by --read, and writes files only into --out,
                    which is new, empty, or an earlier run's (--force replaces its files); read_parquet('<https or hf:// URL>')
                    reads a remote file by range when --read names it or an address above it)
  agentworld export --pool pool.duckdb --layout sft|rl_steps|verl_prompts|dpo|steps[,…] --out DIR [--force]
                    [--partition-by data_source,channel] [--max-file-size 512MB] [--json]
                    DIR: new, empty, or holding only an earlier export (its _manifest.json lists its files); --force replaces those files
                    the page's export options: [--where SQL] [--include-untrainable] [--keep-invalid] [--sft-per trajectory|step]
                    [--dpo-min-margin N] [--redact] [--split NAME] [--split-column split|channel]
                    [--tokens [--max-tokens N] [--truncate drop|turn] [--tokenizer qwen3|DIR]]   (sft: input_ids, assistant_masks, n_tokens;
                    rl_steps: prompt_ids / response_ids where the sampler's are missing, ids_retokenized;
                    DIR holds tokenizer.json, tokenizer_config.json and optionally chat_template.jinja)
  agentworld export --pool pool.duckdb --layout sft[,rl_steps,…] --hub-dataset DIR [--sessions sts] [--license ID] [--title T] [--tags a,b]
                    [--recipe notebook.md|recipe.sql] [--force] + the export options above   (a dataset folder the Hugging Face Hub
                    understands: each layout as Parquet parts per split, README.md with configs, sessions/ in STS; DIR as --out)
  agentworld layout-sql --out layouts.json [--pool pool.duckdb | --steps 'DIR/*.parquet']   (the layouts' SQL for Ray / DuckDB elsewhere)

Every command: [--memory-limit 256MB] — DuckDB's memory_limit; past it DuckDB spills to <pool>.tmp (raise it for large exports).
SQL (cells, --where) reaches no file, folder or network address but the pool and what the command names; no extension is loaded.

Exit codes: 0 ok; 1 a file failed to import, a cell failed or an export failed; 2 bad usage or a missing input.
Rejected lines of an import are written next to the pool as <pool>.rejects.jsonl.`;

const OPTIONS = {
  ...EXPORT_FLAGS,
  pool: { type: 'string' },
  shard: { type: 'string' },
  format: { type: 'string' },
  json: { type: 'boolean', default: false },
  'steps-out': { type: 'string' },
  'allow-effects': { type: 'boolean', default: false },
  read: { type: 'string', multiple: true },
  out: { type: 'string' },
  'partition-by': { type: 'string' },
  'max-file-size': { type: 'string', default: '512MB' },
  force: { type: 'boolean', default: false },
  steps: { type: 'string' },
  tokenizer: { type: 'string' },
  'memory-limit': { type: 'string', default: '256MB' },
  'hub-dataset': { type: 'string' },
  sessions: { type: 'string' },
  license: { type: 'string' },
  title: { type: 'string' },
  tags: { type: 'string' },
  recipe: { type: 'string' },
  threads: { type: 'string' },
  'shard-min-bytes': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function need(v: string | undefined, flag: string): string {
  if (!v) throw new UsageError(`${flag} is required`);
  return v;
}

/** Where a command writes: the process's stdout and stderr, or (a test calling main in-process) its own buffers. */
export interface CliOutput {
  stdout(text: string): void;
  stderr(text: string): void;
}

const PROCESS_OUTPUT: CliOutput = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
};

function progressLine(io: CliOutput): (p: ImportProgress) => void {
  if (io !== PROCESS_OUTPUT || !process.stderr.isTTY) return () => {};
  return (p) => {
    const pct = p.bytesTotal ? Math.floor((100 * p.bytesRead) / p.bytesTotal) : 0;
    io.stderr(`\r\x1b[K${p.file}  ${p.phase} ${pct}%  ${p.records} records, ${p.rows} steps`);
    if (p.phase === 'done') io.stderr('\r\x1b[K');
  };
}

function importLine(r: ImportReport): string {
  const bad = r.rejected.length ? `, ${r.rejected.length} rejected` : '';
  const head = `${r.status.padEnd(9)} ${r.file}: ${r.format}, ${r.records} records → ${r.rows} steps, ${r.added} added${bad}`;
  return r.status === 'failed' || r.status === 'cancelled' ? `${head}\n          ${r.message ?? ''}` : head;
}

/** The CLI's own flag parsing (the export flags come from src/export/export-flags.ts, as "Run headless" writes them). */
export function parseCli(argv: string[]): { values: Values; positionals: string[] } {
  return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
}

/** The command `argv` names; its exit code. `io`: where it writes (the process's stdout and stderr unless given). */
export async function main(argv: string[], io: CliOutput = PROCESS_OUTPUT): Promise<number> {
  const say = (json: boolean, text: string) => {
    if (!json) io.stdout(`${text}\n`);
  };
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseCli(argv);
  } catch (e) {
    io.stderr(`${e instanceof Error ? e.message : String(e)}\n\n${HELP}\n`);
    return 2;
  }
  const { values: v, positionals } = parsed;
  const memoryLimit = v['memory-limit'];
  const [cmd, ...rest] = positionals;
  if (v.help || !cmd) {
    io.stdout(`${HELP}\n`);
    return cmd || v.help ? 0 : 2;
  }
  let pool: NativePool | null = null;
  let remote: ReturnType<typeof cliRemoteParquet> | null = null;
  // Ctrl-C or a kill: the batches an import staged beside the pool go with the process (decision 044); DuckDB's
  // uncommitted transaction needs nothing (the next open rolls it back)
  const onSignal = (signal: NodeJS.Signals) => {
    pool?.db.dropStageSync();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    switch (cmd) {
      case 'import': {
        if (!rest.length) throw new UsageError('import: name at least one file, folder or glob');
        const poolPath = resolve(need(v.pool, '--pool'));
        // the files are read by the import's own readers (node), not by SQL: the engine needs only --steps-out
        pool = await NativePool.open(poolPath, { memoryLimit, scope: { dirs: v['steps-out'] ? [resolve(v['steps-out'])] : [], paths: [] } });
        const threads = v.threads ? Number(v.threads) : undefined;
        if (threads !== undefined && !(Number.isInteger(threads) && threads >= 1)) throw new UsageError(`--threads takes a whole number ≥ 1 (got ${v.threads})`);
        const shardMinBytes = v['shard-min-bytes'] ? parseSize(v['shard-min-bytes']) : undefined;
        const hubInputs = rest.filter((a) => isHubInput(a));
        const local = rest.filter((a) => !isHubInput(a));
        if (hubInputs.length && v.shard) throw new UsageError('--shard takes local files only; import a Hub dataset without it');
        const result = local.length ? await runImport(pool, local, { shard: v.shard, format: v.format, threads, shardMinBytes, onProgress: progressLine(io) }) : { files: [], reports: [], added: 0, ms: 0 };
        // Hugging Face datasets: every trace file under each reference, each its own report (skipped files said on stderr)
        for (const hub of await importHubInputs(pool, hubInputs, { format: v.format, onProgress: progressLine(io) })) {
          for (const s of hub.skipped) io.stderr(`skipped   ${s.path}: ${s.reason}\n`);
          result.files.push(...hub.map((r) => r.file));
          result.reports.push(...hub);
          result.added += hub.reduce((n, r) => n + r.added, 0);
        }
        const rejectsPath = `${poolPath}.rejects.jsonl`;
        const rejects = result.reports.flatMap((r) => r.rejected.map((x) => JSON.stringify({ file: r.file, line: x.line, reason: x.reason })));
        if (rejects.length) writeFileSync(rejectsPath, `${rejects.join('\n')}\n`);
        else rmSync(rejectsPath, { force: true });
        let stepsOut: string | null = null;
        if (v['steps-out']) stepsOut = await writeShardSteps(pool, resolve(v['steps-out']), v.shard, result);
        const failed = result.reports.filter((r) => r.status === 'failed' || r.status === 'cancelled').length;
        const peakRss = process.resourceUsage().maxRSS * 1024;
        if (v.json) io.stdout(`${JSON.stringify({ ...result, peakRss, rejectsFile: rejects.length ? rejectsPath : null, stepsOut, failed }, null, 1)}\n`);
        else {
          for (const r of result.reports) say(false, importLine(r));
          say(false, `${result.reports.length} file(s), ${result.added} step(s) added in ${(result.ms / 1000).toFixed(1)} s${failed ? `, ${failed} FAILED` : ''}${rejects.length ? `; rejected lines: ${rejectsPath}` : ''}`);
        }
        return failed ? 1 : 0;
      }
      case 'run': {
        if (!rest.length) throw new UsageError('run: name a notebook file');
        // a notebook's SQL reads the pool, the files named by --read, and writes only into --out (issue 37 item 2);
        // an https or hf:// --read lets read_parquet read remote files under it (by range, into a folder of the run's own)
        const remoteReads = (v.read ?? []).filter((p) => /^(https?|hf):\/\//i.test(p));
        const localReads = (v.read ?? []).filter((p) => !remoteReads.includes(p));
        const scope = inputScope(localReads);
        for (const p of localReads) if (!existsSync(p) && !/[*?[{]/.test(p)) throw new UsageError(`--read: no such file or folder: ${p}`);
        const remoteDir = resolve(`${need(v.pool, '--pool')}.remote-${process.pid}`);
        scope.dirs.push(remoteDir);
        remote = cliRemoteParquet(remoteDir, { allowed: remoteReads, onRead: (r) => io.stderr(`${describeRead(r, formatBytes)}\n`) });
        // --out as an export's: new, empty, or an earlier run's files (listed by its manifest), which --force replaces
        const runOut = v.out ? resolve(v.out) : null;
        if (runOut) {
          await claimFolder(nodeFolderIo(runOut), { force: v.force, name: runOut, forceHint: '--force' });
          mkdirSync(runOut, { recursive: true });
          scope.dirs.push(runOut);
        }
        pool = await NativePool.open(resolve(need(v.pool, '--pool')), { memoryLimit, scope });
        // several notebooks: one after another on the same pool, in the order given
        const reports = [];
        for (const nb of rest) {
          const report = await runNotebook(pool, nb, { allowEffects: v['allow-effects'], rewrite: (sql) => remote!.sql.rewrite(sql) });
          reports.push(report);
          if (!v.json) {
            if (rest.length > 1) say(false, `${nb}:`);
            for (const c of report.cells) say(false, `${c.status.padEnd(8)} ${c.name}${c.rows !== null ? `: ${c.rows} row(s)` : ''}${c.note ? ` — ${c.note}` : ''}${c.error ? `\n         ${c.error}` : ''}`);
          }
          const bad = report.cells.find((c) => c.status === 'error');
          if (bad) io.stderr(`${rest.length > 1 ? `${nb}: ` : ''}cell ${bad.name} failed: ${bad.error}\n`);
        }
        // every file in --out now was written by these notebooks' effect cells (it was empty): the manifest claims them
        if (runOut) {
          const files = ((await nodeFolderIo(runOut).list()) ?? []).filter((f) => f !== MANIFEST_FILE);
          const sizes = files.map((path) => ({ path, bytes: statSync(join(runOut, ...path.split('/'))).size }));
          writeFileSync(join(runOut, MANIFEST_FILE), JSON.stringify(ownedFilesManifest({ command: 'run', notebooks: rest }, sizes), null, 2));
        }
        if (v.json) io.stdout(`${JSON.stringify(reports.length > 1 ? reports : reports[0], null, 1)}\n`);
        return reports.some((r) => r.cells.some((c) => c.status === 'error')) ? 1 : 0;
      }
      case 'export': {
        if (v['hub-dataset']) {
          // a dataset folder the Hub understands (src/hub/hub-dataset.ts), by the same part-file export per split
          const out = resolve(v['hub-dataset']);
          if (v.out) throw new UsageError('--hub-dataset names the folder: leave --out out');
          if (v.sessions && v.sessions !== 'sts') throw new UsageError(`--sessions takes sts (got ${v.sessions})`);
          const recipe = v.recipe ? recipeText(v.recipe) : null;
          pool = await NativePool.open(resolve(need(v.pool, '--pool')), { memoryLimit, scope: { dirs: [out], paths: [] } });
          await claimFolder(nodeFolderIo(out), { force: v.force, name: out, forceHint: '--force' });
          const layouts = exportOptions(v);
          const { layout: _first, ...common } = layouts[0];
          const maxBytes = parseSize(v['max-file-size'] ?? '512MB');
          const p = pool;
          const report = await exportHubFolder(
            p,
            {
              ...common, layouts: layouts.map((o) => o.layout), sessions: v.sessions === 'sts' ? 'sts' : false, license: v.license, title: v.title, recipe,
              tags: v.tags?.split(',').map((t) => t.trim()).filter(Boolean), partitionBy: (v['partition-by'] ?? '').split(',').map((c) => c.trim()).filter(Boolean) as PartitionColumn[],
            },
            out,
            (o, dir, partitionBy, bytes) => exportLayout(p, o, dir, partitionBy, bytes, v.tokenizer),
            maxBytes,
          );
          for (const c of report.configs) say(v.json, `${c.name}: ${c.splits.map((s) => `${s.split} ${s.rows} row(s) in ${s.files} file(s)`).join(', ')}`);
          if (report.sessions) say(v.json, `sessions: ${report.sessions} STS file(s)`);
          say(v.json, `dataset folder: ${out} (README.md, ${report.files.length} file(s))`);
          if (v.json) io.stdout(`${JSON.stringify({ ...report, readme: undefined }, null, 1)}\n`);
          return 0;
        }
        const out = resolve(need(v.out, '--out'));
        pool = await NativePool.open(resolve(need(v.pool, '--pool')), { memoryLimit, scope: { dirs: [out], paths: [] } });
        const partitionBy = (v['partition-by'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
        const layouts = exportOptions(v);
        const reports = [];
        // several layouts: one folder each under --out, which must be new, empty or hold only earlier exports (--force)
        if (layouts.length > 1) await claimFolder(nodeFolderIo(out), { force: v.force, name: out, forceHint: '--force' });
        for (const o of layouts) {
          const dir = layouts.length > 1 ? join(out, o.layout) : out;
          const report = await exportLayout(pool, o, dir, partitionBy, parseSize(v['max-file-size'] ?? '512MB'), v.tokenizer, v.force);
          reports.push(report);
          say(v.json, `${report.layout}: ${report.rows} row(s) in ${report.files.length} file(s) under ${dir}`);
          for (const p of report.leftOut) say(v.json, `  left out: ${p.n} × ${p.problem}`);
        }
        if (v.json) io.stdout(`${JSON.stringify(layouts.length > 1 ? reports : reports[0], null, 1)}\n`);
        return 0;
      }
      case 'merge': {
        if (!rest.length) throw new UsageError('merge: name the shards\' steps files (import --steps-out), as paths or globs');
        const scope = inputScope(rest);
        if (v['steps-out']) scope.dirs.push(resolve(v['steps-out']));
        pool = await NativePool.open(resolve(need(v.pool, '--pool')), { memoryLimit, scope });
        const result = await mergeShardSteps(pool, rest.map((r) => resolve(r)));
        let stepsOut: string | null = null;
        if (v['steps-out']) stepsOut = await writeShardSteps(pool, resolve(v['steps-out']), undefined, null);
        if (v.json) io.stdout(`${JSON.stringify({ ...result, stepsOut }, null, 1)}\n`);
        else {
          for (const m of result.messages) say(false, `${m.file}: ${m.message}`);
          say(false, `${result.shards.length} shard file(s), ${result.imports} import(s), ${result.added} step(s) in the pool${stepsOut ? `; steps: ${stepsOut}` : ''}`);
        }
        return 0;
      }
      case 'layout-sql': {
        const out = resolve(need(v.out, '--out'));
        if (v.pool) pool = await NativePool.open(resolve(v.pool), { memoryLimit, scope: { dirs: [], paths: [] } });
        else if (v.steps) {
          // steps Parquet files (import --steps-out) stand in for the pool's steps table: verl_prompts reads their JSON types
          pool = await NativePool.open(':memory:', { memoryLimit, scope: inputScope([v.steps]) });
          await pool.exec(`INSERT INTO steps BY NAME ${stepsFromParquet(v.steps)}`);
        }
        const bundle = await layoutBundle(pool);
        writeFileSync(out, `${JSON.stringify(bundle, null, 1)}\n`);
        say(v.json, `layout SQL written to ${out}`);
        return 0;
      }
      default:
        throw new UsageError(`unknown command ${cmd}`);
    }
  } catch (e) {
    const usage = e instanceof UsageError || e instanceof ExportFlagError;
    io.stderr(`agentworld ${cmd}: ${e instanceof Error ? e.message : String(e)}\n${usage ? `\n${HELP}\n` : ''}`);
    return usage || (e instanceof PartFolderError && e.kind === 'refused') ? 2 : 1;
  } finally {
    remote?.dispose();
    await pool?.close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** Rows of steps Parquet files written by writeShardSteps, as the pool's columns (metadata back to a MAP). */
function stepsFromParquet(glob: string): string {
  return `SELECT * REPLACE (map_from_entries(metadata) AS metadata) FROM read_parquet(${sqlString(glob)})`;
}

if (import.meta.url === `file://${process.argv[1]}` || process.env.AGENTWORLD_MAIN === '1') {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}
