// The page's export options ↔ `agentworld export` flags come from one table (src/export/export-flags.ts). Every row
// round-trips (options → flags → the CLI's own parser → the same options), "Run headless" prints the export form's
// settings as flags a POSIX shell hands to the CLI unchanged, and an option on one side only fails here.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import type { DatasetLayout } from '../../src/contract/reports';
import { parseCli } from '../../src/cli/main';
import {
  EXPORT_OPTION_FLAGS, ExportFlagError, type ExportFlagOptions, type ExportFormState, exportArgs, exportOptions, type FlagSpec, formExportOptions, withoutDefaults,
} from '../../src/export/export-flags';
import { parseNotebook } from '../../src/notebook/format';
import { schemaName } from '../../src/notebook/runtime';
import { cliSchema, headlessCommands } from '../../src/views/notebook/headless';
import { inView } from '../../src/pool/queries/steps';
import { parseSize } from '../../src/cli/files';

/** The CLI's parse of an argv (its parser, its export options). */
const cli = (argv: string[]) => exportOptions(parseCli(argv).values);

/** Words as /bin/sh splits a command line (the quoting "Run headless" writes, checked by a real shell). */
function shellWords(line: string): string[] {
  const r = spawnSync('sh', ['-c', `printf '%s\\0' ${line}`], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\0').slice(0, -1);
}

/** Non-default values for a row of the table. */
function samples(s: FlagSpec): unknown[] {
  switch (s.kind) {
    case 'text':
      return ["s.model = 'gpt-4o' AND c.quality <> 'bad' -- $HOME `id` \"q\"", 'val'];
    case 'on':
      return [true];
    case 'off':
      return [false];
    case 'choice':
      return [...s.values];
    case 'number':
      return [0.25, 7, 4096].filter((n) => s.ok(n));
  }
}

const KEYS = Object.keys(EXPORT_OPTION_FLAGS) as (keyof typeof EXPORT_OPTION_FLAGS)[];

/** The export form with every control away from its default. */
const FORM: ExportFormState = {
  layout: 'sft', where: "s.agent = 'o''neil' AND s.reward > 0.5", trainableOnly: false, validOnly: false, redact: true, split: 'val', splitColumn: 'channel',
  sftPer: 'step', tokens: true, maxTokens: 2048, truncate: 'turn', dpoMinMargin: 0.5,
};

describe('CLI export options: one table for the page and the CLI', () => {
  it('every option round-trips: options → flags → the CLI parser → the same options', () => {
    for (const k of KEYS) {
      const vals = samples(EXPORT_OPTION_FLAGS[k]);
      assert.ok(vals.length, `no sample value for ${k}`);
      for (const v of vals) {
        const o = { tokens: true, [k]: v } as ExportFlagOptions;
        const layouts: DatasetLayout[] = ['sft', 'dpo'];
        assert.deepEqual(cli(['export', ...exportArgs(layouts, o)]), layouts.map((layout) => ({ layout, ...o })), `${k} = ${JSON.stringify(v)}`);
      }
    }
    // defaults write no flag and parse back as absent
    assert.deepEqual(exportArgs(['sft'], { trainableOnly: true, validOnly: true, redact: false, tokens: false, split: null, where: '' }), ['--layout', 'sft']);
  });

  it('the export form and the table name the same options, and every flag is the CLI parser\'s', () => {
    const formKeys = new Set([...Object.keys(formExportOptions(FORM)), ...Object.keys(formExportOptions({ ...FORM, layout: 'dpo' }))]);
    formKeys.delete('layout');
    assert.deepEqual([...formKeys].sort(), [...KEYS].sort(), 'an option of the export form without a CLI flag, or a flag the form never sets');
    for (const k of KEYS) {
      const s = EXPORT_OPTION_FLAGS[k];
      const word = s.kind === 'on' || s.kind === 'off' ? [`--${s.flag}`] : [`--${s.flag}`, String(samples(s)[0])];
      assert.doesNotThrow(() => parseCli(['export', '--layout', 'sft', '--tokens', ...word]), `--${s.flag} is not a flag of the CLI parser`);
    }
  });

  it('"Run headless" prints the export form\'s settings as flags the shell hands to the CLI unchanged', () => {
    const nb = parseNotebook('---\ntitle: t\n---\n\n```sql id=picked\nSELECT step_id FROM steps\n```\n');
    for (const form of [FORM, { ...FORM, layout: 'dpo' as const }, { ...FORM, layout: 'rl_steps' as const, tokens: false }]) {
      const options = formExportOptions(form);
      const out = headlessCommands(nb, { notebookFile: 'my notebook.md', export: options, tokenizer: 'qwen3' });
      const line = out.split('\n').find((l) => l.startsWith('npx agentworld export')) as string;
      const words = shellWords(line.replace(/^npx agentworld /, ''));
      const { layout, ...rest } = options;
      assert.deepEqual(cli(words), [{ layout, ...withoutDefaults(rest) }], line);
      if (options.tokens) assert.equal(parseCli(words).values.tokenizer, 'qwen3');
    }
  });

  it('the form\'s part files (a folder per column, at most N MB) reach the CLI as --partition-by and --max-file-size', () => {
    const nb = parseNotebook('---\ntitle: t\n---\n');
    const line = (o: Parameters<typeof headlessCommands>[1]) => (headlessCommands(nb, o).split('\n').at(-1) as string).replace(/^npx agentworld /, '');
    const parted = parseCli(shellWords(line({ notebookFile: 'r.md', export: formExportOptions(FORM), partitionBy: ['data_source', 'channel'], maxFileMb: 64 }))).values;
    assert.equal(parted['partition-by'], 'data_source,channel');
    assert.equal(parseSize(parted['max-file-size'] as string), 64e6, 'the form\'s MB is the CLI\'s MB (10^6 bytes)');
    const plain = parseCli(shellWords(line({ notebookFile: 'r.md', export: formExportOptions(FORM) }))).values;
    assert.equal(plain['partition-by'], undefined);
    assert.equal(plain['max-file-size'], '512MB');
  });

  it('a notebook cell view as the source names the schema `agentworld run` creates', () => {
    const nb = parseNotebook('---\ntitle: t\n---\n');
    const pageSchema = schemaName('nb1');
    for (const name of ['picked', `${pageSchema}.picked`]) {
      const options = formExportOptions({ ...FORM, tokens: false, where: inView(name) });
      const out = headlessCommands(nb, { notebookFile: 'recipe.md', export: options, view: { name, pageSchema } });
      const words = shellWords(out.split('\n').at(-1)?.replace(/^npx agentworld /, '') as string);
      assert.equal(cli(words)[0]?.where, `s.step_id IN (SELECT v.step_id FROM ${cliSchema('recipe.md')}.picked AS v)`);
    }
  });

  it('bad values are usage errors naming the flag', () => {
    for (const [argv, flag] of [
      [['--layout', 'sft', '--sft-per', 'turn'], '--sft-per'],
      [['--layout', 'sft', '--dpo-min-margin', 'x'], '--dpo-min-margin'],
      [['--layout', 'sft', '--tokens', '--max-tokens', '0'], '--max-tokens'],
      [['--layout', 'sft', '--max-tokens', '100'], '--max-tokens'],
      [['--layout', 'sft', '--split-column', 'x'], '--split-column'],
      [['--layout', 'nope'], 'nope'],
    ] as const) {
      assert.throws(() => cli(['export', ...argv]), (e) => e instanceof ExportFlagError && e.message.includes(flag), argv.join(' '));
    }
  });
});

describe('CLI memory', () => {
  it('DuckDB runs under the --memory-limit the CLI gives it (256MB unless told)', async () => {
    const { NativePool } = await import('../../src/cli/native-pool');
    assert.equal(parseCli(['import', 'x']).values['memory-limit'], '256MB');
    const pool = await NativePool.open(':memory:', { memoryLimit: parseCli(['import', 'x', '--memory-limit', '300MB']).values['memory-limit'] });
    try {
      const [{ m }] = await pool.rows("SELECT current_setting('memory_limit') AS m");
      assert.match(String(m), /^286\.\d MiB$|^300\.0 MB$/);
    } finally {
      await pool.close();
    }
  });
});
