import { expect } from '@esm-bundle/chai';
import type { PoolClient } from '../../src/pool/client';
import { sqlString } from '../../src/pool/sql';
import { curationStore } from '../../src/curation/store';
import type { AwTrajectoryList } from '../../src/views/dashboard/aw-trajectory-list';
import '../../src/views/export/aw-export-form';
import type { AwExportForm } from '../../src/views/export/aw-export-form';
import '../../src/views/review/aw-review-queue';
import { insertSteps, loadStandardPool, testServices, trajectorySteps } from './curation-data';
import { mountDashboard } from './dashboard-helpers';
import { emptyPagePool, until } from './helpers';
import { parseNotebook } from '../../src/notebook/format';
import { setOpenNotebook } from '../../src/views/notebook/open-notebook';

type Rows = Awaited<ReturnType<PoolClient['rows']>>;

/** One in-memory pool for the whole file (a pool boot is the costliest step of a browser test); each block empties it first. */
let pool: PoolClient;
before(async function () {
  this.timeout(120_000); // a boot on a loaded CI machine can take 30 s
  pool = await emptyPagePool();
});

describe('<aw-dashboard>', () => {
  before(async () => {
    await pool.clear();
    await loadStandardPool(pool);
  });
  afterEach(() => {
    for (const e of document.querySelectorAll('aw-dashboard, aw-review-queue, aw-export-form')) e.remove();
  });

  const mount = () => mountDashboard(pool);
  /** The rows of `sql` once `done` holds for them (or the last ones read after 10 s: the assertion then says what they were). */
  async function settled(sql: string, done: (rows: Rows) => boolean): Promise<Rows> {
    let rows = await pool.rows(sql);
    for (let i = 0; i < 200 && !done(rows); i++) {
      await new Promise((r) => setTimeout(r, 50));
      rows = await pool.rows(sql);
    }
    return rows;
  }

  it('counts, groups and the sortable list agree with SQL; filters compose', async () => {
    const el = await mount();
    expect(el.summary).to.include({ steps: 15, trajectories: 12, complete: 11, open: 1, error_steps: 1, prompts: 4, trainable_steps: 14 });
    expect(el.summary?.latency_p50).to.be.a('number');
    const text = el.renderRoot.textContent ?? '';
    expect(text).to.include('no-signal groups');
    const groups = el.renderRoot.querySelector('aw-grpo-groups')!;
    await groups.updateComplete;
    const flagged = [...groups.renderRoot.querySelectorAll('tr.flat button')].map((b) => b.textContent);
    expect(flagged).to.deep.equal(['p1']);
    expect(el.renderRoot.querySelectorAll('svg').length).to.be.greaterThan(1);

    const list = el.renderRoot.querySelector('aw-trajectory-list') as AwTrajectoryList;
    // the newest first, as trace lists open (ties by id)
    const newest = await pool.rows('SELECT trajectory_uid FROM trajectories ORDER BY started_at DESC, trajectory_uid LIMIT 4');
    expect(list.uids.slice(0, 4)).to.deep.equal(newest.map((r) => r.trajectory_uid));
    (list.renderRoot.querySelector('button[data-col="reward_sum"]') as HTMLButtonElement).click();
    await until(() => list.uids[0] !== 'p0-b', 'resort');
    await el.loaded;
    expect(list.uids.slice(0, 6).sort()).to.deep.equal(['p0-a', 'p1-a', 'p1-b', 'p1-c', 'p2-b', 'p3-a']);

    (list.renderRoot.querySelector('.row') as HTMLElement).click();
    const inspector = el.renderRoot.querySelector('aw-step-inspector')!;
    await until(() => inspector.selectedStep?.trajectory_uid === list.uids[0], 'row opens in the inspector');
    inspector.dispatchEvent(new KeyboardEvent('keydown', { key: ']', bubbles: true, composed: true }));
    await until(() => inspector.selectedStep?.trajectory_uid === list.uids[1], '] moves to the next listed trajectory');

    const open = el.selectedTrajectory;
    expect(open).to.equal(list.uids[1]);
    el.filter = { agents: ['solver'], status: 'error' };
    await until(() => el.summary?.trajectories === 1, 'filtered summary');
    expect(list.uids).to.deep.equal(['p2-c']);
    expect(open).to.not.equal('p2-c');
    expect(el.selectedTrajectory, 'the inspector drops a trajectory the filter excludes').to.equal(null);
    el.filter = { text: 'prime', rewardMin: 1 };
    await until(() => el.summary?.trajectories === 3, 'text filter');
    expect(el.summary?.prompts).to.equal(1);
    el.filter = {};
    await until(() => el.summary?.trajectories === 12, 'cleared');
  });

  it('hidden, it reruns nothing after a label and is marked stale; shown, it reruns and shows the label', async () => {
    const el = await mount();
    const before = Number(el.summary?.reviewed_steps);
    const [step] = await pool.rows("SELECT s.step_id FROM steps s LEFT JOIN curation c USING (step_id) WHERE coalesce(c.quality, 'unreviewed') = 'unreviewed' ORDER BY s.step_id LIMIT 1");
    const id = String(step?.step_id);
    el.style.display = 'none';
    let heard = false;
    const off = pool.onChange((e) => (heard ||= e.tables.includes('curation')));
    await curationStore(pool).apply({ stepIds: [id] }, { quality: 'good' });
    await until(() => heard, 'the change reported');
    off();
    await el.loaded;
    expect(Number(el.summary?.reviewed_steps), 'no rerun while hidden').to.equal(before);
    el.style.display = '';
    await until(() => Number(el.summary?.reviewed_steps) === before + 1, 'the label counted once the dashboard is shown');
    await curationStore(pool).undo();
    await until(() => Number(el.summary?.reviewed_steps) === before, 'the label undone');
  });

  it('bulk-labels the filter from the UI; the export manifest matches the dashboard numbers', async () => {
    const el = await mount();
    el.filter = { models: ['m-large'], rewardMax: 0 };
    await until(() => el.summary?.trajectories === 1, 'filter p3-b');
    const bulk = el.renderRoot.querySelector('aw-bulk-label')!;
    await bulk.updateComplete;
    const selects = bulk.renderRoot.querySelectorAll('select');
    selects[0].value = 'bad';
    selects[0].dispatchEvent(new Event('change'));
    selects[1].value = 'no';
    selects[1].dispatchEvent(new Event('change'));
    await bulk.updateComplete;
    (bulk.renderRoot.querySelector('button[type=submit]') as HTMLButtonElement).click();
    await bulk.updateComplete;
    // nothing is written before the user confirms the count
    const confirm = bulk.renderRoot.querySelector('[aria-label="Confirm bulk label"]');
    expect(confirm?.textContent).to.include('This labels 2 steps: every step the current filter selects');
    expect((await pool.rows('SELECT count(*)::INTEGER AS n FROM curation'))[0].n).to.equal(0);
    (confirm!.querySelector('button') as HTMLButtonElement).click();
    await until(() => el.summary?.bad_steps === 2, 'labels shown');
    const rows = await pool.rows(`SELECT step_id, quality, trainable FROM curation ORDER BY step_id`);
    expect(rows).to.deep.equal([
      { step_id: 'p3-b:0', quality: 'bad', trainable: false },
      { step_id: 'p3-b:1', quality: 'bad', trainable: false },
    ]);

    el.filter = { agents: ['solver'] };
    await until(() => el.summary?.trajectories === 9, 'solver filter');
    await el.loaded;
    const shown = { ...el.summary };
    const dialog = el.renderRoot.querySelector('aw-export-form') as AwExportForm;
    const saved: { name: string; blob: Blob }[] = [];
    dialog.saveFile = (name, blob) => saved.push({ name, blob });
    dialog.layout = 'rl_steps';
    dialog.open = true;
    await dialog.updateComplete;
    const manifest = await dialog.exportNow();
    expect(manifest).to.not.equal(null);
    expect(manifest!.steps).to.equal(shown.trainable_steps);
    expect(manifest!.trajectories).to.equal(shown.trainable_trajectories);
    expect(manifest!.rows).to.equal(shown.trainable_steps);
    expect(manifest!.source.filter).to.deep.equal({ agents: ['solver'] });
    expect(saved.map((s) => s.name.split('.').slice(1).join('.'))).to.deep.equal(['parquet', 'manifest.json']);
    expect(JSON.parse(await saved[1].blob.text()).rows).to.equal(manifest!.rows);
    expect(dialog.preview?.numRows).to.equal(5);

    dialog.trainableOnly = false;
    dialog.format = 'jsonl';
    await dialog.updateComplete;
    const all = await dialog.exportNow();
    expect(all!.steps).to.equal(shown.steps);
    // the failed step has no response: the preview names it, the export leaves it out and the manifest counts it
    expect(all!.excluded).to.deep.equal({ 'no response': 1 });
    expect(dialog.renderRoot.querySelector('.problems')?.textContent).to.include('p2-c:0').and.include('no response');
    expect((await saved[2].blob.text()).trim().split('\n').length).to.equal(Number(shown.steps) - 1);

    // the Data tab's SQL filter is a source of the same form: its predicate selects, the manifest records it
    dialog.source = 'sql';
    dialog.predicate = "s.trajectory_uid = 'p0-b'";
    await dialog.updateComplete;
    const one = await dialog.exportNow();
    const [n] = await pool.rows("SELECT count(*)::INTEGER AS n FROM steps WHERE trajectory_uid = 'p0-b'");
    expect(one!.steps).to.equal(Number(n.n));
    expect(one!.source).to.deep.equal({ kind: 'sql', where: "s.trajectory_uid = 'p0-b'" });
    await curationStore(pool).undo();
  });

  it("exports a notebook cell's view picked from the open notebook's views, resolved to the notebook's schema", async () => {
    // the Notebook tab has "Tool steps" open: tool_steps has step_id, counts has none, later has not run
    const doc = parseNotebook(['# Tool steps', '```sql id=tool_steps', "SELECT step_id FROM steps WHERE trajectory_uid LIKE 'p3-%'", '```',
      '```sql id=counts', 'SELECT count(*) AS n FROM steps', '```', '```sql id=later', 'SELECT step_id FROM steps', '```'].join('\n'));
    setOpenNotebook({ id: 'exportpick', doc });
    await pool.exec('CREATE SCHEMA IF NOT EXISTS nb_exportpick');
    await pool.exec("CREATE OR REPLACE VIEW nb_exportpick.tool_steps AS SELECT step_id FROM steps WHERE trajectory_uid LIKE 'p3-%'");
    await pool.exec('CREATE OR REPLACE VIEW nb_exportpick.counts AS SELECT count(*) AS n FROM steps');
    const [want] = await pool.rows('SELECT count(*)::INTEGER AS n FROM nb_exportpick.tool_steps');
    const form = document.createElement('aw-export-form');
    form.services = testServices(pool);
    form.source = 'view';
    form.layout = 'steps';
    form.trainableOnly = false;
    form.previewing = true;
    const saved: { name: string; blob: Blob }[] = [];
    form.saveFile = (name, blob) => saved.push({ name, blob });
    document.body.append(form);
    const picker = () => form.renderRoot.querySelector('select[aria-label="Notebook view"]') as HTMLSelectElement | null;
    await until(() => form.rowCount === Number(want.n), "the view's rows counted");
    expect(form.viewName, 'the first view with step_id is chosen').to.equal('tool_steps');
    const options = [...picker()!.options].map((o) => ({ text: o.textContent?.trim(), disabled: o.disabled }));
    expect(options).to.deep.equal([
      { text: 'tool_steps', disabled: false },
      { text: 'counts (no step_id column)', disabled: true },
      { text: 'later (not run yet)', disabled: true },
    ]);
    expect(form.renderRoot.querySelector('.err')).to.equal(null);
    const manifest = await form.exportNow();
    expect(manifest?.rows).to.equal(Number(want.n));
    expect(manifest?.source).to.include({ kind: 'view', view: 'tool_steps' });
    expect(manifest?.source.where).to.include('nb_exportpick.tool_steps');
    expect(saved.map((f) => f.name.split('.').pop())).to.deep.equal(['parquet', 'json']);

    // a failing source shows its error and no stale "Counting…" beside it
    picker()!.value = 'counts';
    picker()!.dispatchEvent(new Event('change'));
    await until(() => !!form.renderRoot.querySelector('.err'), 'the error of a view without step_id');
    await form.updateComplete;
    expect(form.renderRoot.querySelector('[role="status"]')?.textContent ?? '').to.not.include('Counting');
    setOpenNotebook(null);
    form.remove();
    await pool.exec('DROP SCHEMA nb_exportpick CASCADE');
  });

  it("a live preview re-runs at a notebook's run only when it reads one of the notebook's views", async () => {
    // the previews the form asked for: each asks for its first five rows once (headOf; pool.rows goes through query too)
    let previews = 0;
    const services = testServices(pool);
    const counting = Object.create(pool) as PoolClient;
    counting.query = (sql: string) => {
      if (/\) LIMIT 5$/.test(sql)) previews++;
      return pool.query(sql);
    };
    services.pool = counting;
    const form = document.createElement('aw-export-form');
    form.services = services;
    form.source = 'pool';
    form.layout = 'steps';
    form.trainableOnly = false;
    form.previewing = true;
    document.body.append(form);
    await until(() => form.preview !== null, 'the first preview');
    expect(previews, 'previews at the start').to.equal(1);
    const doc = parseNotebook(['# Runs', '```sql id=tool_steps', "SELECT step_id FROM steps WHERE trajectory_uid LIKE 'p3-%'", '```'].join('\n'));
    await pool.exec('CREATE SCHEMA IF NOT EXISTS nb_previewruns');
    await pool.exec("CREATE OR REPLACE VIEW nb_previewruns.tool_steps AS SELECT step_id FROM steps WHERE trajectory_uid LIKE 'p3-%'");
    // the notebook opens and runs twice: the pool's preview stays; a layout change then re-runs it once (had the runs
    // re-run it, their previews' first rows would have been asked for before this one's: the pool answers in order)
    for (let run = 0; run < 3; run++) setOpenNotebook({ id: 'previewruns', doc });
    // nor does a dashboard filter, which only the 'filter' source reads
    form.where = "s.model = 'none'";
    await form.updateComplete;
    form.layout = 'sft';
    // done when the sft layout's first rows are shown (its first column; the steps layout's is step_id)
    await until(() => form.preview?.schema.fields[0]?.name === 'trajectory_uid', "the layout's preview");
    expect(previews, 'previews after three runs of a notebook, a filter and one layout change').to.equal(2);
    // a preview of the notebook's view follows its runs
    form.source = 'view';
    form.layout = 'steps';
    const [want] = await pool.rows('SELECT count(*)::INTEGER AS n FROM nb_previewruns.tool_steps');
    await until(() => form.viewName === 'tool_steps' && form.rowCount === Number(want?.n) && previews >= 3, "the view's preview");
    const before = previews;
    setOpenNotebook({ id: 'previewruns', doc });
    await until(() => previews > before, "the view's preview after a run");
    setOpenNotebook(null);
    form.remove();
    await pool.exec('DROP SCHEMA nb_previewruns CASCADE');
  });

  it("a live preview follows the pool's writes to steps and curation, and waits while the form is hidden", async () => {
    // the Data tab's form, previewing, while another tab is shown: its controls change (a notebook's run does that to
    // a view's preview) and nothing is read until the form is shown again, then once, with the latest controls
    const tab = document.createElement('div');
    tab.hidden = true;
    document.body.append(tab);
    const form = document.createElement('aw-export-form');
    form.services = testServices(pool);
    form.source = 'pool';
    form.layout = 'sft';
    let reads = 0;
    const read = form.refreshPreview.bind(form);
    form.refreshPreview = () => {
      reads++;
      return read();
    };
    form.previewing = true;
    tab.append(form);
    await form.updateComplete;
    form.layout = 'steps';
    await form.updateComplete;
    form.redact = true;
    await form.updateComplete;
    expect(reads, 'previews while hidden').to.equal(0);
    tab.hidden = false;
    await until(() => form.preview !== null, 'the preview once shown');
    expect(reads, 'previews once shown').to.equal(1);
    expect(form.preview?.schema.fields[0]?.name, "the steps layout's first column").to.equal('step_id');
    await form.livePreview.settled;
    // a write the pool reports: resolves once every listener before this one (the form's) has been told
    const written = (sql: string) =>
      new Promise<void>((resolve, reject) => {
        const off = pool.onChange(() => {
          off();
          resolve();
        });
        pool.exec(sql).catch(reject);
      });
    // the pool as it was, also when a check fails (the suite's later tests read its labels)
    let one: Record<string, unknown> | undefined;
    try {
      // a write to a table no layout reads: no read
      await written('CREATE OR REPLACE TABLE preview_scratch AS SELECT 1 AS x');
      await form.livePreview.settled;
      expect(reads, 'after a write to another table').to.equal(1);
      // a label (curation) on a trainable step with none yet: one read, and one row less (trainable steps only)
      const before = form.rowCount ?? 0;
      expect(before, 'trainable steps').to.be.greaterThan(1);
      [one] = await pool.rows("SELECT step_id FROM steps WHERE status = 'ok' AND step_id NOT IN (SELECT step_id FROM curation) ORDER BY step_id LIMIT 1");
      await written(`INSERT INTO curation (step_id, quality) VALUES (${sqlString(String(one?.step_id))}, 'bad')`);
      await form.livePreview.settled;
      expect(reads, 'after a label').to.equal(2);
      expect(form.rowCount, 'rows after the label').to.equal(before - 1);
      // hidden again: a write marks it stale, and it reads once when shown
      tab.hidden = true;
      await written(`DELETE FROM curation WHERE step_id = ${sqlString(String(one?.step_id))}`);
      await form.livePreview.settled;
      expect(reads, 'after a write while hidden').to.equal(2);
      tab.hidden = false;
      await until(() => reads === 3 && form.rowCount === before, 'the read once shown, with the label gone');
      await form.livePreview.settled;
      expect(reads).to.equal(3);
      // Preview pressed again reads again, through the same controller
      (form.renderRoot.querySelector('.actions button') as HTMLButtonElement).click();
      await form.livePreview.settled;
      expect(reads, 'after Preview').to.equal(4);
    } finally {
      form.remove();
      tab.remove();
      if (one) await pool.exec(`DELETE FROM curation WHERE step_id = ${sqlString(String(one.step_id))}`);
      await pool.exec('DROP TABLE IF EXISTS preview_scratch');
    }
  });

  it('the export form shows the count as soon as it is known, and says it is still checking the rows', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    // the first rows wait at a gate: the count must not wait for them
    const slow = { rows: (sql: string) => pool.rows(sql), query: (sql: string) => gate.then(() => pool.query(sql)), onChange: (fn: Parameters<PoolClient['onChange']>[0]) => pool.onChange(fn) } as unknown as PoolClient;
    const form = document.createElement('aw-export-form');
    form.services = { ...testServices(pool), pool: slow };
    form.source = 'pool';
    form.layout = 'steps';
    form.trainableOnly = false;
    form.previewing = true;
    document.body.append(form);
    const [n] = await pool.rows('SELECT count(*)::INTEGER AS n FROM steps');
    await until(() => form.rowCount === Number(n.n), 'the count before the first rows');
    await form.updateComplete;
    expect(form.renderRoot.querySelector('strong.total')?.textContent).to.equal(Number(n.n).toLocaleString('en-US'));
    expect(form.renderRoot.querySelector('progress[aria-label="Checking the rows"]'), 'still checking').to.not.equal(null);
    expect(form.preview).to.equal(null);
    release();
    await until(() => form.preview !== null, 'the first rows');
    await form.updateComplete;
    expect(form.renderRoot.querySelector('progress[aria-label="Checking the rows"]')).to.equal(null);
    form.remove();
  });

  it('review queue: unreviewed low-reward first; g / b / t / u / n from the keyboard', async () => {
    const q = document.createElement('aw-review-queue');
    q.services = testServices(pool);
    document.body.append(q);
    await until(() => q.queue.length === 12, 'queue');
    expect(q.queue.slice(0, 5)).to.deep.equal(['p0-b', 'p2-a', 'p2-c', 'p3-b', 'p0-c']);
    const inspector = q.renderRoot.querySelector('aw-step-inspector')!;
    await until(() => inspector.selectedStep?.trajectory_uid === 'p0-b', 'inspector');
    const key = (k: string) => inspector.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, composed: true, cancelable: true }));
    expect(q.unreviewedTrajectories).to.equal(12);
    key('b');
    await until(() => q.current === 'p2-a', 'advance after b');
    await until(() => q.unreviewedTrajectories === 11, 'the unreviewed count follows a label without re-rank');
    key('g');
    await until(() => q.current === 'p2-c', 'advance after g');
    await until(() => q.unreviewedTrajectories === 10, 'unreviewed count after g');
    await until(() => inspector.selectedStep?.trajectory_uid === 'p2-c', 'inspector p2-c');
    key('t');
    const want = JSON.stringify([
      { step_id: 'p0-b:0', quality: 'bad', trainable: null },
      { step_id: 'p2-a:0', quality: 'good', trainable: null },
      { step_id: 'p2-c:0', quality: 'unreviewed', trainable: true },
    ]);
    let rows = await settled(`SELECT step_id, quality, trainable FROM curation ORDER BY step_id`, (r) => JSON.stringify(r) === want);
    expect(rows).to.deep.equal([
      { step_id: 'p0-b:0', quality: 'bad', trainable: null },
      { step_id: 'p2-a:0', quality: 'good', trainable: null },
      { step_id: 'p2-c:0', quality: 'unreviewed', trainable: true },
    ]);
    key('u');
    rows = await settled(`SELECT step_id FROM curation ORDER BY step_id`, (r) => r.length === 2);
    expect(rows.map((r) => r.step_id)).to.deep.equal(['p0-b:0', 'p2-a:0']);
    await q.undo();
    await until(() => q.unreviewedTrajectories === 11, 'unreviewed count after undo');
    key('n');
    expect(q.current).to.equal('p3-b');
    await curationStore(pool).undo();
    expect((await pool.rows('SELECT count(*)::INTEGER AS n FROM curation'))[0].n).to.equal(0);
  });
});

describe('<aw-review-queue> keys', () => {
  before(async () => {
    await pool.clear();
    await loadStandardPool(pool);
  });
  afterEach(() => document.querySelector('aw-review-queue')?.remove());

  it('take effect as soon as the queue is shown, with the focus outside it or on its select; t does what its toggle shows', async () => {
    const outside = document.createElement('button');
    outside.textContent = 'the Review queue tab';
    document.body.append(outside);
    const q = document.createElement('aw-review-queue');
    q.services = testServices(pool);
    document.body.append(q);
    await until(() => q.queue.length === 12, 'queue');
    const inspector = q.renderRoot.querySelector('aw-step-inspector')!;
    await until(() => inspector.selectedStep?.trajectory_uid === 'p0-b', 'inspector');
    const press = (from: Element, k: string) => from.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, composed: true, cancelable: true }));
    // the focus is on the tab that was clicked, outside the queue
    outside.focus();
    press(outside, 'n');
    expect(q.current, 'n with the focus outside the queue').to.equal('p2-a');
    // a select of the queue has the focus: the queue's keys are still the queue's
    const order = q.renderRoot.querySelector('select[aria-label="Review order"]') as HTMLSelectElement;
    order.focus();
    const notTyped = press(order, 'p');
    expect(q.current, 'p with the order select focused').to.equal('p0-b');
    expect(notTyped, "the select's type-ahead does not also take the key").to.equal(false);
    // t on a step nobody labelled (trainable by the rule): the toggle shows it on, and t turns it off
    await until(() => inspector.selectedStep?.trajectory_uid === 'p0-b', 'inspector back on p0-b');
    const toggle = () => [...q.renderRoot.querySelectorAll('button')].find((b) => b.textContent?.includes('trainable (t)')) as HTMLButtonElement;
    await q.updateComplete;
    expect(toggle().getAttribute('aria-pressed')).to.equal('true');
    press(outside, 't');
    const rows = async () => pool.rows("SELECT step_id, trainable FROM curation WHERE step_id LIKE 'p0-b:%'");
    for (let i = 0; i < 100 && (await rows()).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await rows()).to.deep.equal([{ step_id: 'p0-b:0', trainable: false }]);
    await until(() => toggle().getAttribute('aria-pressed') === 'false', 'the toggle shows not trainable');
    press(outside, 't');
    for (let i = 0; i < 100 && (await rows())[0]?.trainable !== true; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await rows()).to.deep.equal([{ step_id: 'p0-b:0', trainable: true }]);
    await until(() => toggle().getAttribute('aria-pressed') === 'true', 'the toggle shows trainable');
    // typing in a text field is the field's: no label, and the bar says why
    const field = document.createElement('input');
    document.body.append(field);
    field.focus();
    press(field, 'b');
    await q.updateComplete;
    expect((await pool.rows("SELECT count(*)::INTEGER AS n FROM curation WHERE quality = 'bad'"))[0].n).to.equal(0);
    expect(q.renderRoot.querySelector('.keys')?.textContent).to.include('Keys paused');
    field.remove();
    outside.remove();
    await curationStore(pool).undo();
    await curationStore(pool).undo();
  });
});

describe('<aw-grpo-groups> signal', () => {
  it('flags groups where fewer than two rollouts have a reward: a NULL reward is not signal', async () => {
    await pool.clear();
    const specs = [
      { uid: 'n-a', prompt: 'none', question: 'q none', reward: null },
      { uid: 'n-b', prompt: 'none', question: 'q none', reward: null },
      { uid: 'o-a', prompt: 'one', question: 'q one', reward: 1 },
      { uid: 'o-b', prompt: 'one', question: 'q one', reward: null },
      { uid: 'y-a', prompt: 'some', question: 'q some', reward: 1 },
      { uid: 'y-b', prompt: 'some', question: 'q some', reward: 0 },
      { uid: 'y-c', prompt: 'some', question: 'q some', reward: null },
    ];
    await insertSteps(pool, specs.flatMap(trajectorySteps));
    const el = document.createElement('aw-dashboard');
    el.services = testServices(pool);
    document.body.append(el);
    await until(() => el.summary !== null, 'dashboard summary');
    await el.loaded;
    const groups = el.renderRoot.querySelector('aw-grpo-groups')!;
    await groups.updateComplete;
    const signal = Object.fromEntries(
      [...groups.renderRoot.querySelectorAll('tbody tr')].map((tr) => [tr.querySelector('button')?.textContent, tr.lastElementChild?.textContent]),
    );
    expect(signal).to.deep.equal({ none: 'none: no rewards', one: 'none: one reward', some: 'yes (2 of 3 rewarded)' });
    const flagged = [...groups.renderRoot.querySelectorAll('tr.flat button')].map((b) => b.textContent).sort();
    expect(flagged).to.deep.equal(['none', 'one']);
    expect(Number(el.renderRoot.querySelector('[aria-label="no-signal groups"] b')?.textContent)).to.equal(2);
    el.remove();
  });
});

/**
 * One pool of 5,200 trajectories for both: the dashboard lists the first LIST_LIMIT (2,000) of them, which is the list
 * the virtualization test scrolls (it had a 2,000-trajectory pool of its own, inserted and read by a dashboard for it).
 */
describe('<aw-dashboard> on a large pool; <aw-trajectory-list> virtualization', () => {
  before(async () => {
    await pool.clear();
    const steps = Array.from({ length: 5200 }, (_, i) => trajectorySteps({ uid: `t${String(i).padStart(5, '0')}`, prompt: `g${i % 5100}`, question: `q${i % 5100}`, reward: i % 4 })).flat();
    await insertSteps(pool, steps);
  });

  it('lists the first LIST_LIMIT trajectories and groups, and counts, charts and says all of them', async () => {
    const el = document.createElement('aw-dashboard');
    el.services = testServices(pool);
    document.body.append(el);
    await until(() => el.summary !== null && el.trajectories !== null, 'dashboard');
    await el.loaded;
    expect(el.trajectories?.numRows).to.equal(2000);
    expect(el.summary?.trajectories).to.equal(5200);
    const text = el.renderRoot.textContent ?? '';
    expect(text).to.include('Trajectories (the first 2,000 of 5,200 in this order');
    const groups = el.renderRoot.querySelector('aw-grpo-groups')!;
    await groups.updateComplete;
    // 5,100 prompt groups; 100 have two rollouts (i and i + 5100) with equal rewards (5100 % 4 = 0): no signal
    expect(groups.renderRoot.textContent).to.include('5,100 prompt groups · 100 with more than one rollout');
    expect(Number(el.renderRoot.querySelector('[aria-label="no-signal groups"] b')?.textContent)).to.equal(100);
    // the reward histogram is counted in SQL: its bins hold every rewarded trajectory
    const bins = await pool.rows(`SELECT sum(trajectories)::INTEGER AS n, min(x1) AS lo, max(x2) AS hi FROM (${(await import('../../src/views/dashboard/queries')).rewardsSql('')})`);
    const [{ n, lo, hi }] = bins;
    const [{ want, rmin, rmax }] = await pool.rows('SELECT count(reward_sum)::INTEGER AS want, min(reward_sum) AS rmin, max(reward_sum) AS rmax FROM trajectories');
    expect(n).to.equal(want);
    expect(lo).to.equal(rmin);
    expect(hi).to.equal(rmax);
    el.remove();
  });

  it('renders only the visible rows of thousands of trajectories', async () => {
    const el = document.createElement('aw-dashboard');
    el.services = testServices(pool);
    document.body.append(el);
    await until(() => el.trajectories?.numRows === 2000, '2000 trajectories');
    await el.loaded;
    const list = el.renderRoot.querySelector('aw-trajectory-list') as AwTrajectoryList;
    await list.updateComplete;
    const rendered = list.renderRoot.querySelectorAll('.row').length;
    expect(rendered).to.be.greaterThan(5);
    expect(rendered).to.be.lessThan(60);
    const scroller = list.renderRoot.querySelector('.scroll') as HTMLElement;
    // the active row (the grid's Tab stop) stays rendered wherever it is: the window is the rest
    const firstVisible = () => Math.min(...[...list.renderRoot.querySelectorAll('.row[tabindex="-1"]')].map((r) => Number(r.getAttribute('aria-rowindex'))));
    // on a loaded machine layout can lag the first scroll: scroll until the rows follow (or time out)
    await until(() => {
      scroller.scrollTop = 24 * 1800;
      scroller.dispatchEvent(new Event('scroll'));
      return firstVisible() > 1700;
    }, 'rows near 1,800 rendered after scrolling');
    expect(list.renderRoot.querySelectorAll('.row').length).to.be.lessThan(60);

    // one grid, one Tab stop: arrows, Home / End (rendering rows far down), Enter opens, ↑ from the top reaches the headers
    const tabStops = () => [...list.renderRoot.querySelectorAll('[tabindex="0"]')];
    expect(tabStops().length, 'one Tab stop in the whole grid').to.equal(1);
    const key = (k: string) => list.shadowRoot!.activeElement!.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, composed: true, cancelable: true }));
    list.active = 0;
    await list.focusActive();
    const focusedRow = () => Number((list.shadowRoot!.activeElement as HTMLElement | null)?.dataset.index);
    expect(focusedRow()).to.equal(0);
    key('ArrowDown');
    await until(() => focusedRow() === 1, 'ArrowDown');
    key('End');
    await until(() => focusedRow() === 1999, 'End renders and focuses the last row');
    expect(tabStops().length).to.equal(1);
    key('Home');
    await until(() => focusedRow() === 0, 'Home');
    const opened: string[] = [];
    el.addEventListener('aw-trajectory-select', (e) => opened.push((e as CustomEvent<{ trajectoryUid: string }>).detail.trajectoryUid));
    key('ArrowDown');
    await until(() => focusedRow() === 1, 'ArrowDown again');
    key('Enter');
    expect(opened).to.deep.equal([list.uids[1]]);
    key('ArrowUp');
    await until(() => focusedRow() === 0, 'ArrowUp');
    key('ArrowUp');
    await until(() => (list.shadowRoot!.activeElement as HTMLElement | null)?.dataset.col === list.sort.column, 'the sorted header');
    key('ArrowRight');
    await until(() => !!(list.shadowRoot!.activeElement as HTMLElement | null)?.dataset.col && (list.shadowRoot!.activeElement as HTMLElement).dataset.col !== list.sort.column, 'the next header');
    expect(tabStops().length).to.equal(1);

    // the id column stays in sight when the others scroll sideways
    list.style.width = '420px';
    await list.updateComplete;
    scroller.scrollLeft = 400;
    const idCell = list.renderRoot.querySelector('.row [role="gridcell"]') as HTMLElement;
    const left = scroller.getBoundingClientRect().left;
    await until(() => Math.abs(idCell.getBoundingClientRect().left - left) <= 2, 'sticky id column');
    expect(scroller.scrollLeft).to.be.greaterThan(0);
    el.remove();
  });
});
