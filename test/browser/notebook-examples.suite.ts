import { expect } from '@esm-bundle/chai';
import { EXAMPLE_NOTEBOOKS } from '../../src/notebook/api';
import { parseNotebook } from '../../src/notebook/format';
import { parsePlotSpec } from '../../src/notebook/plot-spec';
import { NotebookRuntime } from '../../src/notebook/runtime';
import type { PoolClient } from '../../src/pool/client';
import { tableToRows } from '../../src/pool/rows';
import { renderPlot } from '../../src/views/notebook/plot-render';
import { demoPool, demoSteps, insertDemo } from './notebook-demo';

/** Cells that may legitimately be empty on the demo data. */
const MAY_BE_EMPTY = new Set(['rejected', 'duplicates', 'unanswered']);

describe('example notebooks on demo data', () => {
  let pool: PoolClient;
  before(async () => {
    pool = await demoPool();
    // The same conversation as s1, imported again from another file under another trajectory id.
    const dup = demoSteps('s1', 'solver', 'p1', 1).map((s) => ({ ...s, step_id: s.step_id.replace('s1', 'dup1'), trajectory_uid: 'dup1' }));
    await insertDemo(pool, dup, 'copy.jsonl');
  });

  it('lists the four examples', () => {
    expect(EXAMPLE_NOTEBOOKS.map((x) => x.file)).to.deep.equal(['tour.md', 'sft-curation.md', 'rl-rewards.md', 'tool-calls.md']);
  });

  for (const ex of EXAMPLE_NOTEBOOKS) {
    it(`${ex.file} runs without errors and draws its charts`, async () => {
      const res = await fetch(`/notebooks/${ex.file}`);
      expect(res.ok).to.equal(true);
      const doc = parseNotebook(await res.text());
      const rt = new NotebookRuntime(pool, `ex_${ex.file.replace(/\W/g, '_')}`);
      rt.setCells(doc.cells);
      await rt.runAll();
      for (const c of doc.cells) {
        if (c.kind === 'md') continue;
        const s = rt.state(c.key);
        const name = c.options.id ?? c.source.slice(0, 40);
        if (c.options.effect) {
          expect(s.status, `${name}: effect cells never run on open`).to.equal('idle');
          continue;
        }
        expect(s.error, `${ex.file} ${name}`).to.equal(null);
        expect(s.status, name).to.equal('done');
        if (!MAY_BE_EMPTY.has(c.options.id ?? '')) expect(s.table!.numRows, `${name} has rows`).to.be.greaterThan(0);
        if (c.kind === 'plot') {
          const svg = renderPlot(parsePlotSpec(c.source), s.table!, 600);
          expect(svg.querySelectorAll('rect, circle, path').length, `${name} draws marks`).to.be.greaterThan(2);
        }
      }
      if (ex.file === 'sft-curation.md') {
        const dupes = tableToRows(rt.state(doc.cells.find((c) => c.options.id === 'duplicates')!.key).table!);
        expect(dupes.map((d) => d.trajectories)).to.deep.equal([['dup1', 's1']]);
        const effect = doc.cells.find((c) => c.options.effect)!;
        await rt.runCell(effect.key);
        await rt.idle();
        expect(rt.state(effect.key).error).to.equal(null);
        const splits = await pool.rows("SELECT count(*)::INTEGER AS n FROM curation WHERE split IN ('train', 'val')");
        expect(splits[0].n).to.be.greaterThan(0);
      }
      if (ex.file === 'rl-rewards.md') {
        const groups = tableToRows(rt.state(doc.cells.find((c) => c.options.id === 'groups')!.key).table!);
        expect(groups.map((g) => g.prompt_uid).sort()).to.deep.equal(['p1', 'p2']);
      }
      if (ex.file === 'tool-calls.md') {
        const byTool = tableToRows(rt.state(doc.cells.find((c) => c.options.id === 'by_tool')!.key).table!);
        expect(byTool.map((t) => t.tool)).to.include('calc');
      }
      rt.dispose();
    });
  }
});
