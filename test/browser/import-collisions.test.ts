/**
 * Step ids that collide across files (docs/decisions/011): a different trajectory that reuses an id is
 * kept apart and named, a re-import adds nothing and says so, spans of one trace split across two export
 * files join one trajectory, and a file that made nothing is reported as failed.
 */
import { expect } from '@esm-bundle/chai';
import { provide } from '@lit/context';
import { html, LitElement } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { Exporter, ImportReport } from '../../src/contract/reports';
import type { Services } from '../../src/views/kit/services';
import { servicesContext } from '../../src/views/kit/services';
import type { PoolClient } from '../../src/pool/client';
import { stepsToIPC } from '../../src/ingest/step-arrow';
import type { StepRecord } from '../../src/contract/step';
import '../../src/views/data/aw-import-panel';
import { fixture, importerFor, startPool, withImports } from './helpers';

@customElement('test-collisions-host')
class TestCollisionsHost extends LitElement {
  @provide({ context: servicesContext })
  @property({ attribute: false })
  services!: Services;
  override render() {
    return html`<slot></slot>`;
  }
}

/** An OTLP JSON export holding LLM spans of one trace (the shape opentelemetry-js / pydantic-ai write). */
function otlp(trace: string, spans: number[]): string {
  const span = (n: number) => ({
    traceId: trace,
    spanId: `${n}`.padStart(16, '0'),
    name: 'chat gpt-4o-mini',
    kind: 3,
    startTimeUnixNano: `${1764666090000000000n + BigInt(n) * 1000000000n}`,
    endTimeUnixNano: `${1764666090500000000n + BigInt(n) * 1000000000n}`,
    attributes: [
      { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
      { key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o-mini' } },
      { key: 'gen_ai.input.messages', value: { stringValue: JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: `turn ${n}` }] }]) } },
      { key: 'gen_ai.output.messages', value: { stringValue: JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: `answer ${n}` }], finish_reason: 'stop' }]) } },
    ],
  });
  return JSON.stringify({ resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'agent' } }] }, scopeSpans: [{ scope: { name: 'test' }, spans: spans.map(span) }] }] });
}

/** One in-memory pool for the whole file (a pool boot is the costliest step of a browser test); each block empties it first. */
let pool: PoolClient;
before(async function () {
  this.timeout(120_000); // a boot on a loaded CI machine can take 30 s
  pool = await startPool('collisions', true);
});
after(() => pool.terminate());

describe('import: ids that collide across files', function () {
  this.timeout(180_000);
  let importer: ReturnType<typeof importerFor>;
  before(async () => {
    await pool.clear();
    importer = importerFor(pool);
  });

  const imp = async (file: File): Promise<ImportReport> => (await importer.importFiles([file]))[0];
  const count = async (where = 'true') => Number((await pool.rows(`SELECT count(*) AS n FROM steps WHERE ${where}`))[0].n);

  it('two runs that reuse a session_id are both kept, the second apart and named; re-imports add nothing and say so', async () => {
    const text = await (await fixture('formats/atif-trajectory.json')).text();
    const run1 = new File([text], 'run-1.json');
    // the second run: the same session_id (normalized by the exporter), the same first turns, another ending
    const doc = JSON.parse(text);
    const sid = String(doc.session_id);
    doc.steps[doc.steps.length - 1].message = 'Done: hello.txt was written (second run).';
    const run2 = new File([JSON.stringify(doc, null, 2)], 'run-2.json');

    const a = await imp(run1);
    expect(a.status, a.message ?? '').to.equal('done');
    expect(a.collisions ?? []).to.deep.equal([]);
    const b = await imp(run2);
    expect(b.status, b.message ?? '').to.equal('done');
    expect(b.rows).to.be.greaterThan(1);
    // every step of the second run is kept, the ones equal to the first run's too (a trajectory is never split)
    expect(b.added).to.equal(b.rows);
    expect(b.collisions).to.have.length(1);
    const [c] = b.collisions!;
    expect(c.trajectory).to.equal(sid);
    expect(c.how).to.equal('apart');
    expect(c.keptAs).to.match(new RegExp(`^${sid}@[0-9a-f]{12}$`));
    expect(c.steps).to.equal(b.rows);
    const trajs = await pool.rows(`SELECT trajectory_uid AS t, any_value(source_trajectory_id) AS own, count(*) AS n, count(*) FILTER (WHERE is_last) AS last FROM steps GROUP BY ALL ORDER BY t`);
    expect(trajs).to.deep.equal([
      { t: sid, own: sid, n: a.rows, last: 1 },
      { t: c.keptAs, own: sid, n: b.rows, last: 1 },
    ]);
    const [msg] = await pool.rows(`SELECT status, message FROM imports WHERE import_id = ${b.importId}`);
    expect(msg.message).to.contain(c.keptAs);

    const before = await count();
    for (const f of [run2, run1]) {
      const again = await imp(f);
      expect(again.added, f.name).to.equal(0);
      expect(again.status, f.name).to.equal('unchanged');
      expect(again.alreadyInPool, f.name).to.equal(again.rows);
      expect(again.message, f.name).to.match(/already imported — 0 new steps/i);
      expect(again.collisions ?? [], f.name).to.deep.equal([]);
      const [row] = await pool.rows(`SELECT status FROM imports WHERE import_id = ${again.importId}`);
      expect(row.status).to.equal('unchanged');
    }
    expect(await count()).to.equal(before);
  });

  it('spans of one trace split across two export files join one trajectory; the span in both is kept once', async () => {
    const trace = '0af7651916cd43dd8448eb211c80319c';
    const a = await imp(new File([otlp(trace, [1, 2, 3])], 'export-1.json'));
    expect(a.added).to.equal(3);
    const b = await imp(new File([otlp(trace, [3, 4, 5])], 'export-2.json'));
    expect(b.status, b.message ?? '').to.equal('done');
    expect(b.added).to.equal(2);
    expect(b.alreadyInPool).to.equal(1);
    expect(b.collisions).to.deep.equal([{ trajectory: trace, keptAs: trace, steps: 2, how: 'joined' }]);
    const rows = await pool.rows(`SELECT step_index AS i, step_id, is_last, response_text AS r FROM steps WHERE trajectory_uid = '${trace}' ORDER BY step_index`);
    expect(rows.map((r) => r.r)).to.deep.equal(['answer 1', 'answer 2', 'answer 3', 'answer 4', 'answer 5']);
    expect(rows.map((r) => r.i)).to.deep.equal([0, 1, 2, 3, 4]);
    expect(rows.map((r) => r.is_last)).to.deep.equal([false, false, false, false, true]);
    const [t] = await pool.rows(`SELECT step_count FROM trajectories WHERE trajectory_uid = '${trace}'`);
    expect(t.step_count).to.equal(5);
    const again = await imp(new File([otlp(trace, [3, 4, 5])], 'export-2.json'));
    expect(again.added).to.equal(0);
    expect(again.status).to.equal('unchanged');
    expect(await count(`trajectory_uid = '${trace}'`)).to.equal(5);
  });

  it('a step id repeated within one file with other content is a rejected line, not dropped silently', async () => {
    const [rep] = await importer.importFiles([await fixture('bad/duplicate-step-ids.jsonl')]);
    expect(rep.added).to.equal(3);
    expect(rep.rejected.map((r) => r.line)).to.deep.equal([3]);
    expect(rep.rejected[0].reason).to.match(/dup-a:1 was already made by line 2/);
    const errs = await pool.rows(`SELECT line FROM import_errors WHERE import_id = ${rep.importId}`);
    expect(errs.map((e) => e.line)).to.deep.equal([3]);
  });

  it('a file whose every record fails is reported failed, with the reason, and adds nothing', async () => {
    const before = await count();
    const rep = await imp(new File(['{"messages": [}\n{"a": 1,,}\nnot json at all\n'], 'all-bad.jsonl'));
    expect(rep.status).to.equal('failed');
    expect(rep.added).to.equal(0);
    expect(rep.message).to.match(/Nothing was imported/).and.match(/line 1/);
    expect(rep.rejected.map((r) => r.line)).to.deep.equal([1, 2, 3]);
    const [row] = await pool.rows(`SELECT status, message, rejected FROM imports WHERE import_id = ${rep.importId}`);
    expect(row.status).to.equal('failed');
    expect(row.rejected).to.equal(3);
    expect(await count()).to.equal(before);
  });

  it('records that the chosen format rejects one and all: failed, saying so', async () => {
    const [rep] = await importer.importFiles([new File([`${JSON.stringify({ hello: 1 })}\n${JSON.stringify({ world: 2 })}\n`], 'not-chat.jsonl')], { format: 'openai-chat' });
    expect(rep.status, rep.message ?? '').to.equal('failed');
    expect(rep.message).to.match(/Nothing was imported/);
  });
});

describe('import panel: what was kept', function () {
  this.timeout(120_000);
  /** An <aw-import-panel> on the emptied pool. */
  async function mountPanel() {
    await pool.clear();
    const host = document.createElement('test-collisions-host') as TestCollisionsHost;
    host.services = withImports({ pool, importer: importerFor(pool), exporter: {} as Exporter, notify: () => {} });
    const panel = document.createElement('aw-import-panel');
    host.append(panel);
    document.body.append(host);
    return { host, panel };
  }
  it('says nothing was imported for a failed file, names collisions, and "already imported" on a re-import', async () => {
    const { host, panel } = await mountPanel();
    const one = (sid: string, answer: string) => new File([JSON.stringify({ session_id: sid, messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: answer }] })], `${answer}.jsonl`);
    await panel.importFiles([new File(['{"messages": [}\nnope\n'], 'all-bad.jsonl'), one('s-1', 'first'), one('s-1', 'second'), one('s-1', 'second')]);
    await panel.updateComplete;
    const item = (name: string) => panel.shadowRoot!.querySelector(`[aria-label="Import of ${name}"]`)!;
    const bad = item('all-bad.jsonl');
    expect(bad.querySelector('.badge')!.textContent).to.equal('failed');
    expect(bad.querySelector('.nothing')!.textContent).to.equal('Nothing of this file was imported.');
    expect(bad.querySelector('.message')!.textContent).to.match(/none of the 2 record\(s\) in the file could be read \(first: line 1/);
    // the two "second.jsonl" jobs, newest first
    const [again, second] = [...panel.shadowRoot!.querySelectorAll('[aria-label="Import of second.jsonl"]')];
    expect(second.querySelector('.badge')!.textContent).to.equal('done');
    const note = second.querySelector('.collisions')!.textContent!.replace(/\s+/g, ' ');
    expect(note).to.match(/s-1: 1 step\(s\) kept apart as s-1@[0-9a-f]{12}/);
    expect(again.querySelector('.badge')!.textContent).to.equal('unchanged');
    expect(again.querySelector('.message')!.textContent).to.match(/^Already imported — 0 new steps/);
    expect(again.querySelector('.nothing')).to.equal(null);
    host.remove();
  });

  it('twenty files: one summary line, finished reports one line each (newest first, open only when they need a step), URLs by file name', async () => {
    const { host, panel } = await mountPanel();
    const file = (i: number) => new File([JSON.stringify({ messages: [{ role: 'user', content: `q${i}` }, { role: 'assistant', content: `a${i}` }] })], `f${String(i).padStart(2, '0')}.jsonl`);
    await panel.importFiles(Array.from({ length: 19 }, (_, i) => file(i)));
    const url = new URL('/test/fixtures/core/chat.jsonl', location.origin).href;
    const running = panel.importUrl(url);
    await panel.updateComplete;
    // while it runs, the URL shows as its file name (the whole address is the title)
    const name = panel.shadowRoot!.querySelector('[aria-label="Imports running"] .name')!;
    expect([name.textContent, name.getAttribute('title')]).to.deep.equal(['chat.jsonl', url]);
    await running;
    await panel.updateComplete;
    const items = [...panel.shadowRoot!.querySelectorAll('.done-list > li')];
    expect(items.length).to.equal(20);
    expect(items.slice(0, 3).map((li) => li.getAttribute('aria-label'))).to.deep.equal(['Import of chat.jsonl', 'Import of f18.jsonl', 'Import of f17.jsonl']);
    expect(panel.shadowRoot!.querySelectorAll('.done-list details[open]').length, 'all done: all closed').to.equal(0);
    const [total] = await pool.rows('SELECT count(*)::INTEGER AS n FROM steps');
    const line = panel.shadowRoot!.querySelector('.summary-line')!.textContent!.replace(/\s+/g, ' ');
    expect(line).to.include(`20 files imported · ${Number(total.n).toLocaleString('en-US')} steps added`);
    // the page it takes: a line per file, not a card (20 reports made 3,434 px)
    expect(panel.getBoundingClientRect().height).to.be.lessThan(900);
    host.remove();
  });
});

describe('import commit: rows captured outside any import', function () {
  this.timeout(60_000);
  const step = (i: number, importId: number | null, answer = `a${i}`, sourceId = 'capture'): StepRecord => ({
    step_id: `gw-1:${i}`, trajectory_uid: 'gw-1', prompt_uid: 'p', step_index: i, is_last: null, channel: 'train', policy_version: null,
    agent: null, data_source: null, model: 'm', provider: null, messages: [{ role: 'user', content: `q${i}` }], tools: null,
    response: { role: 'assistant', content: answer }, response_text: answer, finish_reason: 'stop', prompt_tokens: null, completion_tokens: null,
    prompt_ids: null, response_ids: null, rollout_log_probs: null, reward: null, started_at: null, ended_at: null, latency_ms: null, ttft_ms: null,
    status: 'ok', error: null, metadata: null, raw: null, source: 'capture', source_format: 'gateway', source_line: null, source_id: sourceId, import_id: importId,
  });

  it('gateway rows (import_id NULL) re-imported from a steps export are already in the pool; changed ones are kept apart', async () => {
    await pool.clear();
    await pool.upsertSteps(stepsToIPC([step(0, null), step(1, null)]));
    const id = await pool.beginImport({ file: 'steps.jsonl', sourceId: 'abcdef0123456789', bytes: 1 });
    await pool.appendBatch(id, stepsToIPC([step(0, id, 'a0', 'abcdef0123456789'), step(1, id, 'a1', 'abcdef0123456789')]));
    const r = await pool.commitImport(id, { format: 'step-record', confidence: 1, records: 2, rowsMade: 2, errors: [] });
    expect(r.rowsAdded).to.equal(0);
    expect(r.alreadyInPool).to.equal(2);
    const id2 = await pool.beginImport({ file: 'steps-edited.jsonl', sourceId: 'fedcba9876543210', bytes: 1 });
    await pool.appendBatch(id2, stepsToIPC([step(0, id2, 'a0', 'fedcba9876543210'), step(1, id2, 'edited', 'fedcba9876543210')]));
    const r2 = await pool.commitImport(id2, { format: 'step-record', confidence: 1, records: 2, rowsMade: 2, errors: [] });
    expect(r2.rowsAdded).to.equal(2);
    expect(r2.collisions).to.deep.equal([{ trajectory: 'gw-1', keptAs: 'gw-1@fedcba987654', steps: 2, how: 'apart' }]);
    const rows = await pool.rows(`SELECT trajectory_uid AS t, count(*) AS n FROM steps GROUP BY ALL ORDER BY t`);
    expect(rows).to.deep.equal([{ t: 'gw-1', n: 2 }, { t: 'gw-1@fedcba987654', n: 2 }]);
    const [imp] = await pool.rows(`SELECT status FROM imports WHERE import_id = ${id}`);
    expect(imp.status).to.equal('unchanged');
  });
});
