import { expect } from '@esm-bundle/chai';
import type { Exporter } from '../../src/contract/reports';
import type { Services } from '../../src/views/kit/services';
import { WorkerImporter } from '../../src/ingest/importer';
import { MappingError } from '../../src/ingest/mapping/spec';
import { MappingStore } from '../../src/ingest/mapping/store';
import type { PoolClient } from '../../src/pool/client';
import '../../src/views/data/aw-import-panel';
import '../../src/views/formats/aw-formats';
import type { AwFormats } from '../../src/views/formats/aw-formats';
import { takePendingMapping } from '../../src/views/formats/start-mapping';
import { emptyPagePool, fixture, importerFor, parquetWasmUrl, until, withImports } from './helpers';
import { importPanelOnEmptyPool } from './import-panel-host';
import { servicesHost } from './services-host';

/** What a user writes for the support-ticket export (the skeleton plus model, queue and time). */
const TICKETS = {
  id: 'support-tickets',
  label: 'Helpdesk ticket export',
  detect: { required: ['ticket', 'dialog'] },
  fields: {
    messages: { path: 'dialog', role: 'who', content: 'said', roleMap: { customer: 'user', bot: 'assistant', sys: 'system' } },
    trajectory_uid: 'ticket',
    reward: { path: 'csat', transforms: ['number'] },
    model: 'bot_build',
    data_source: 'queue',
    started_at: 'opened',
  },
  metadata: { rest: true },
};

const ingestWorker = () => new Worker(new URL('/workers/ingest.worker.ts', location.origin), { type: 'module' });
const storeFor = (name: string) => new MappingStore({ dbName: `aw-formats-test-${name}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}` });

describe('mapping store', () => {
  it('saves valid mappings, refuses invalid ones with every problem, enables, deletes', async () => {
    const store = storeFor('crud');
    let err: unknown = null;
    try {
      await store.save({ ...TICKETS, id: 'Bad Id', detect: { required: [] } });
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(MappingError);
    const problems = (err as MappingError).problems;
    expect(problems.some((p) => p.startsWith('mapping.id:'))).to.equal(true);
    expect(problems.some((p) => p.startsWith('mapping.detect.required:'))).to.equal(true);
    expect(await store.list()).to.deep.equal([]);

    const text = JSON.stringify(TICKETS, null, 4);
    const m = await store.save(text);
    expect(m).to.include({ id: 'support-tickets', label: 'Helpdesk ticket export', enabled: true, text });
    expect((await store.get('support-tickets'))?.text).to.equal(text);
    expect(await store.enabledSpecs()).to.deep.equal([TICKETS]);
    await store.setEnabled('support-tickets', false);
    expect(await store.enabledSpecs()).to.deep.equal([]);
    await store.save(text);
    expect((await store.get('support-tickets'))?.enabled, 're-saving keeps the enabled state').to.equal(false);
    await store.delete('support-tickets');
    expect(await store.list()).to.deep.equal([]);
    await store.close();
  });

  it('exports all mappings as one JSON file and imports it back, listing refused entries', async () => {
    const a = storeFor('export');
    await a.save(TICKETS);
    await a.save({ ...TICKETS, id: 'tickets-v2', label: 'v2' }, { enabled: false });
    const blob = await a.exportAll();
    const bundle = JSON.parse(await blob.text());
    expect(bundle.format).to.equal('aw-formats');
    expect(bundle.mappings.map((m: { spec: { id: string } }) => m.spec.id)).to.deep.equal(['support-tickets', 'tickets-v2']);
    bundle.mappings.push({ enabled: true, spec: { id: 'broken', label: 'no fields', detect: { required: ['x'] } } });
    const b = storeFor('import');
    const r = await b.importFile(new File([JSON.stringify(bundle)], 'formats.json'));
    expect(r.saved).to.deep.equal(['support-tickets', 'tickets-v2']);
    expect(r.refused.map((x) => x.id)).to.deep.equal(['broken']);
    expect(r.refused[0].problems.join()).to.match(/mapping\.fields/);
    expect((await b.list()).map((m) => [m.id, m.enabled, m.origin])).to.deep.equal([
      ['support-tickets', true, 'formats.json'],
      ['tickets-v2', false, 'formats.json'],
    ]);
    let notJson: unknown = null;
    await b.importFile(new File(['{oops'], 'x.json')).catch((e) => (notJson = e));
    expect(String(notJson)).to.match(/not a JSON file/);
    await a.close();
    await b.close();
  });

  it('lists the shipped examples (notebooks/formats/index.json) and copies one into the store', async () => {
    const store = storeFor('builtins');
    const ex = await store.builtins();
    expect(ex.map((b) => b.id).sort()).to.deep.equal(['agent-turns', 'alpaca', 'episode-conversations-mapped']);
    const m = await store.copyBuiltin('alpaca.json');
    expect(m).to.include({ id: 'alpaca', enabled: true, origin: 'notebooks/formats/alpaca.json' });
    expect(await store.enabledSpecs()).to.have.length(1);
    await store.close();
  });
});

/** One in-memory pool for the whole file (a pool boot is the costliest step of a browser test); each block empties it first. */
let pool: PoolClient;
before(async function () {
  this.timeout(120_000); // a boot on a loaded CI machine can take 30 s
  pool = await emptyPagePool();
});

describe('a file of an unknown shape becomes importable by a mapping', () => {
  before(() => pool.clear());

  it('is not understood first (nothing kept, the fields named), then imports as steps once a mapping is saved and enabled', async () => {
    const file = await fixture('mapping/support-tickets.jsonl');
    const [plain] = await importerFor(pool).importFiles([file]);
    expect(plain.status).to.equal('failed');
    expect(plain.format).to.equal('generic');
    expect(plain.added).to.equal(0);
    expect(plain.message).to.match(/^Not understood: .*fields seen: ticket, queue, opened, dialog/);
    expect(plain.notUnderstood?.fields).to.include('dialog');

    const store = storeFor('pipeline');
    await store.save(TICKETS);
    const importer = new WorkerImporter({ pool, parquetWasmUrl, worker: ingestWorker, mappings: () => store.enabledSpecs() });
    const [rep] = await importer.importFiles([file]);
    expect(rep.status, rep.message ?? '').to.equal('done');
    expect(rep.format).to.equal('support-tickets');
    expect(rep.confidence).to.be.greaterThan(0.8);
    expect(rep.message).to.equal(null);
    expect(rep.records).to.equal(5);
    expect(rep.rows).to.equal(5);
    const rejected = [...rep.rejected].sort((a, b) => a.line - b.line);
    expect(rejected.map((r) => r.line)).to.deep.equal([3, 5], 'the empty dialog is reported, the truncated line rejected');
    expect(rejected[0].reason).to.match(/no messages found/);
    const rows = await pool.rows(`SELECT trajectory_uid, step_index, is_last, reward, model, data_source, started_at IS NOT NULL AS timed,
        list_transform(messages, m -> m.role) AS roles, response.role AS rrole, response.content AS rcontent, metadata['csat'] AS csat_meta
      FROM steps WHERE import_id = ${rep.importId} ORDER BY trajectory_uid, step_index`);
    const plainRows = rows.map((r): Record<string, unknown> => ({ ...r, roles: Array.from(r.roles as Iterable<string>) }));
    expect(plainRows.map((r) => [r.trajectory_uid, r.step_index, r.reward])).to.deep.equal([
      ['T-1001', 0, 5],
      ['T-1002', 0, null],
      ['T-1002', 1, 3],
      ['T-1004', 0, 2],
      ['T-1006', 0, 4],
    ]);
    expect(plainRows[2].roles).to.deep.equal(['system', 'user', 'assistant', 'user']);
    expect(plainRows[2].rrole).to.equal('assistant');
    expect(String(plainRows[2].rcontent)).to.match(/can't promise a date/);
    expect(plainRows[3]).to.include({ model: 'helpdesk-7b-r4', data_source: 'général', timed: true });
    expect(plainRows.map((r) => r.is_last)).to.deep.equal([true, false, true, true, true]);
    expect(plainRows[0].csat_meta, 'keys the mapping reads are not repeated in metadata').to.equal(null);

    await store.setEnabled('support-tickets', false);
    const [off] = await importer.importFiles([new File([await file.arrayBuffer(), '\n'], 'again.jsonl')]);
    expect(off.format, 'a disabled mapping is not tried').to.equal('generic');
    expect(off.status).to.equal('failed');
    await store.close();
  });
});

describe('import report of an unrecognized file', () => {
  it('says it was not understood, offers "Write a mapping for this file" (the File handed over in aw-start-mapping) and "Import as generic rows"', async () => {
    const { host, panel } = await importPanelOnEmptyPool(pool);
    const known = await fixture('formats/langfuse-trace.json');
    const unknown = await fixture('mapping/support-tickets.jsonl');
    await panel.importFiles([known, unknown]);
    await panel.updateComplete;
    const buttons = [...panel.shadowRoot!.querySelectorAll('button')].filter((b) => b.textContent === 'Write a mapping for this file');
    expect(buttons.length, 'only the generic import offers it').to.equal(1);
    expect(buttons[0].closest('li')!.getAttribute('aria-label')).to.equal('Import of support-tickets.jsonl');
    let got: File | null = null;
    const onStart = (e: Event) => (got = (e as CustomEvent<{ file: File }>).detail.file);
    window.addEventListener('aw-start-mapping', onStart);
    buttons[0].click();
    window.removeEventListener('aw-start-mapping', onStart);
    expect(got).to.equal(unknown);
    expect(takePendingMapping(), 'kept for a Formats panel that mounts later').to.equal(unknown);
    expect(takePendingMapping()).to.equal(null);
    const note = panel.shadowRoot!.querySelector('.not-understood')?.textContent ?? '';
    expect(note).to.match(/Not understood/);
    expect(note).to.match(/ticket.*dialog/s);
    const asGeneric = [...panel.shadowRoot!.querySelectorAll('button')].find((b) => b.textContent === 'Import as generic rows')!;
    asGeneric.click();
    await until(() => host.services.imports.jobs.length === 3 && !!host.services.imports.jobs[0].report, 'the generic import');
    const [again] = host.services.imports.jobs;
    expect(again.report?.format).to.equal('generic');
    expect(again.report?.status, again.report?.message ?? '').to.equal('done');
    expect(again.report?.added).to.equal(5);
    host.remove();
  });
});

describe('<aw-formats> editor', () => {
  before(() => pool.clear());

  it('takes a file from aw-start-mapping, guesses a mapping, previews steps as text, flags problems, saves and imports', async () => {
    const store = storeFor('editor');
    const notes: string[] = [];
    const services: Services = withImports({
      pool,
      importer: new WorkerImporter({ pool, parquetWasmUrl, worker: ingestWorker, mappings: () => store.enabledSpecs() }),
      exporter: {} as Exporter,
      notify: (m) => void notes.push(m),
    });
    const host = servicesHost();
    host.services = services;
    const el = document.createElement('aw-formats') as AwFormats;
    el.store = store;
    host.append(el);
    document.body.append(host);
    await el.updateComplete;
    const root = el.shadowRoot!;
    const q = <T extends Element>(sel: string) => root.querySelector(sel) as T;
    const previewText = () => q<HTMLElement>('[aria-label="Preview"]').textContent ?? '';
    expect(q('[aria-label="Built-in formats"]').textContent).to.match(/openai-chat[\s\S]*tau-bench/);
    await until(() => !!q('[aria-label="Copy example alpaca to my mappings"]'), 'examples listed');

    // the import report's button dispatches this from inside the Data tab
    const sample = await fixture('mapping/support-tickets.jsonl');
    host.dispatchEvent(new CustomEvent('aw-start-mapping', { bubbles: true, composed: true, detail: { file: sample } }));
    await until(() => /T-1002/.test(previewText()), 'preview of the guessed mapping');
    const textarea = q<HTMLTextAreaElement>('textarea[aria-label="Mapping JSON"]');
    expect(JSON.parse(textarea.value).id).to.equal('my-support-tickets');
    expect(q('.sample-name').textContent).to.equal('support-tickets.jsonl');
    expect(q('.score').textContent).to.equal('0.85');
    expect(q('.winner').textContent).to.equal('my-support-tickets');
    expect(q('.step-count').textContent).to.equal('5');
    const step = q<HTMLElement>('[aria-label="Step 1 of T-1002"]');
    expect(step.querySelector('.reward')!.textContent).to.equal('3');
    expect([...step.querySelectorAll('.messages .role')].map((x) => x.textContent)).to.deep.equal(['system', 'user', 'assistant', 'user']);
    expect(step.querySelector('.response .content')!.textContent).to.match(/can't promise a date/);
    expect(q('[aria-label="Record 3 (line 3)"] .record-error').textContent).to.match(/no messages found/);
    expect(previewText()).to.match(/line 5: truncated last line|line 5: malformed JSON/);

    // an invalid edit: problems inline by path, Save disabled
    const spec = JSON.parse(textarea.value);
    delete spec.detect;
    spec.fields.reward = { transforms: ['nope'] };
    textarea.value = JSON.stringify(spec);
    textarea.dispatchEvent(new Event('input'));
    await el.updateComplete;
    const problems = [...root.querySelectorAll('[aria-label="Mapping problems"] li')].map((li) => li.textContent ?? '');
    expect(problems.some((p) => p.startsWith('mapping.detect:'))).to.equal(true);
    expect(problems.some((p) => p.startsWith('mapping.fields.reward:'))).to.equal(true);
    expect(q<HTMLButtonElement>('[aria-label="Save mapping"]').disabled).to.equal(true);

    // a sample through the picker, with markup in its text: rendered as text, never as elements
    const nasty = new File([`${JSON.stringify({ ticket: 'X-1', dialog: [{ who: 'customer', said: '<img src=x onerror="window.__pwned=1">hi' }, { who: 'bot', said: '<b>bold</b> reply' }], csat: 1 })}\n`], 'nasty.jsonl');
    textarea.value = JSON.stringify(TICKETS, null, 2);
    textarea.dispatchEvent(new Event('input'));
    const picker = q<HTMLInputElement>('input[aria-label="Sample file for the mapping"]');
    const dt = new DataTransfer();
    dt.items.add(nasty);
    picker.files = dt.files;
    picker.dispatchEvent(new Event('change'));
    await until(() => /X-1/.test(previewText()), 'preview of the picked sample');
    expect(previewText()).to.include('<img src=x onerror="window.__pwned=1">hi');
    expect(previewText()).to.include('<b>bold</b> reply');
    const preview = q('[aria-label="Preview"]');
    expect(preview.querySelector('img, [onerror]')).to.equal(null);
    expect([...preview.querySelectorAll('b')].some((b) => b.textContent === 'bold'), 'no <b> from the trace').to.equal(false);
    expect((window as unknown as { __pwned?: number }).__pwned).to.equal(undefined);

    // save, then import the sample with the saved mapping
    q<HTMLButtonElement>('[aria-label="Save mapping"]').click();
    await until(() => notes.some((n) => /support-tickets/.test(n)), 'saved');
    expect((await store.list()).map((m) => m.id)).to.deep.equal(['support-tickets']);
    await until(() => !!q('[aria-label="Enable support-tickets"]'), 'listed');
    expect(q<HTMLInputElement>('[aria-label="Enable support-tickets"]').checked).to.equal(true);
    q<HTMLButtonElement>('[aria-label="Import the sample file"]').click();
    await until(() => /Imported nasty\.jsonl as support-tickets/.test(root.textContent ?? ''), 'imported', 600);
    const [row] = await pool.rows(`SELECT trajectory_uid, messages[1].content AS c FROM steps WHERE source = 'nasty.jsonl'`);
    expect(row).to.deep.equal({ trajectory_uid: 'X-1', c: '<img src=x onerror="window.__pwned=1">hi' });

    q<HTMLButtonElement>('[aria-label="Disable mapping"]').click();
    await until(() => !q<HTMLInputElement>('[aria-label="Enable support-tickets"]').checked, 'disabled');
    expect(await store.enabledSpecs()).to.deep.equal([]);
    q<HTMLButtonElement>('[aria-label="Delete mapping"]').click();
    await until(() => !q('[aria-label="Enable support-tickets"]'), 'deleted');
    expect(await store.list()).to.deep.equal([]);

    // "Import it" uses the mapping on screen, even unsaved: no saved mapping is left, and the file still imports with it
    textarea.value = JSON.stringify({ ...TICKETS, id: 'unsaved-tickets' }, null, 2);
    textarea.dispatchEvent(new Event('input'));
    const dt2 = new DataTransfer();
    dt2.items.add(new File([`${JSON.stringify({ ticket: 'X-2', dialog: [{ who: 'customer', said: 'where is my order?' }, { who: 'bot', said: 'on its way' }], csat: 4 })}\n`], 'second.jsonl'));
    picker.files = dt2.files;
    picker.dispatchEvent(new Event('change'));
    await until(() => /X-2/.test(previewText()), 'preview of the second sample');
    q<HTMLButtonElement>('[aria-label="Import the sample file"]').click();
    await until(() => /Imported second\.jsonl as unsaved-tickets/.test(root.textContent ?? ''), 'imported with the unsaved mapping', 600);
    const [second] = await pool.rows(`SELECT trajectory_uid, source_format, reward FROM steps WHERE source = 'second.jsonl'`);
    expect(second).to.deep.equal({ trajectory_uid: 'X-2', source_format: 'unsaved-tickets', reward: 4 });
    host.remove();
    await store.close();
  });
});

describe('a folder picked in the import panel', () => {
  it('imports every file under it, each reported by its path, a Cline task joined across its two files', async () => {
    const { host, panel } = await importPanelOnEmptyPool(pool);
    const dt = new DataTransfer();
    for (const name of ['api_conversation_history.json', 'ui_messages.json']) {
      const f = await fixture(`folders/cline-task/tasks/1769053680585/${name}`);
      // what a webkitdirectory pick gives: the file's path in the picked folder
      Object.defineProperty(f, 'webkitRelativePath', { value: `cline-task/tasks/1769053680585/${name}` });
      dt.items.add(f);
    }
    const input = panel.shadowRoot!.querySelector('input[aria-label="Import a folder"]') as HTMLInputElement;
    expect(input.hasAttribute('webkitdirectory')).to.equal(true);
    input.files = dt.files;
    input.dispatchEvent(new Event('change'));
    const jobs = () => host.services.imports.jobs;
    await until(() => jobs().length === 2 && jobs().every((j) => j.report), 'both reports');
    const byFile = new Map(jobs().map((j) => [j.file, j.report!]));
    const history = byFile.get('cline-task/tasks/1769053680585/api_conversation_history.json');
    expect(history?.status, history?.message ?? '').to.equal('done');
    expect(history?.rows).to.equal(3);
    expect(history?.warnings).to.include('usage, cost and start times read from cline-task/tasks/1769053680585/ui_messages.json');
    // the UI log is read with the conversation: reported so, not as a failure
    const ui = byFile.get('cline-task/tasks/1769053680585/ui_messages.json');
    expect([ui?.status, ui?.rows, ui?.readWith]).to.deep.equal(['done', 0, 'cline-task/tasks/1769053680585/api_conversation_history.json']);
    const [cost] = await pool.rows(`SELECT sum(CAST(metadata['cost_usd'] AS DOUBLE)) AS usd FROM steps`);
    expect(Number(cost.usd)).to.be.closeTo(0.06366, 1e-9);
    host.remove();
  });
});
