// `agentworld export` takes the page's export options (ExportDatasetOptions): every field a command line can carry
// parses back from the flags exportArgs writes for it (what "run headless" prints), and bad values are usage errors.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseArgs } from 'node:util';
import { EXPORT_FLAGS, exportArgs, exportOptions, type HeadlessExportOptions } from '../../src/cli/export-options';
import { UsageError } from '../../src/cli/files';

const parse = (argv: string[]) => exportOptions(parseArgs({ args: argv, options: EXPORT_FLAGS, strict: true }).values);

describe('CLI export options', () => {
  it('every option of the page round-trips through the flags', () => {
    const cases: Omit<HeadlessExportOptions, 'layout'>[] = [
      {},
      { where: "s.model = 'gpt-4o' AND c.quality <> 'bad'", trainableOnly: false, validOnly: false },
      { sftPer: 'step', redact: true, split: 'val', splitColumn: 'channel' },
      { sftPer: 'trajectory', dpoMinMargin: 0.25, split: 'train', splitColumn: 'split' },
      { tokens: true, maxTokens: 4096, truncate: 'turn' },
    ];
    for (const o of cases) {
      const got = parse(exportArgs(['sft', 'dpo'], o));
      assert.deepEqual(got, [{ layout: 'sft', ...o }, { layout: 'dpo', ...o }]);
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
      assert.throws(() => parse([...argv]), (e) => e instanceof UsageError && e.message.includes(flag), argv.join(' '));
    }
  });
});
