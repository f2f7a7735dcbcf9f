/** Boot: take the pool lock, start the pool worker, wire importer / exporter, mount <aw-app>, expose window.workbench. */
import { earlyPoolWorker, WASM_CACHE } from './early-pool';
import type { AwApp } from './app/aw-app';
import { foreignFramer, refuseFramed } from './app/frame-guard';
import './app/aw-app';
import { assets } from './assets';
import type { WorkbenchApi } from './app/workbench-api';
import { loadDemoManifest, Workbench } from './app/workbench';
import { TEST_BUILD } from './util/test-build';
import { WorkerExporter } from './export/exporter';
import { WorkerImporter } from './ingest/importer';
import { html } from 'lit';
import { PoolClient } from './pool/client';
import { EXAMPLE_NOTEBOOKS, openNotebook, runAll } from './notebook/api';
import { fetchExample } from './notebook/examples';
import './views/notebook/aw-notebooks';
import { startGatewayServices } from './gateway/page/boot';
import { registerGateway } from './gateway/page/register';
import { agentServices } from './agents/services';
import './views/gateway/aw-gateway';
import { setCuration, setCurationWhere } from './curation/api';
import type { CurationPatch } from './curation/store';
import './views/dashboard/aw-dashboard';
import { mappingStore } from './ingest/mapping/store';
import './views/formats/aw-formats';
import { START_MAPPING_EVENT } from './views/formats/start-mapping';
import { bundledQwen3 } from './tokenizer/bundled';
import { setActiveTokenizer, type TokenizerInput, TokenizerService } from './tokenizer/service';
import { hubEndpoint, hubToken, setHubEndpoint, setHubToken } from './hub/settings';
import { pageRemoteParquet } from './hub/remote-page';
import { describeRead } from './hub/remote-query';
import { formatBytes } from './util/format-bytes';

const params = new URLSearchParams(location.search);
const poolName = (params.get('pool') ?? 'pool').replace(/[^A-Za-z0-9_-]/g, '_') || 'pool';

/** One tab owns the OPFS pool (Web Locks); another tab gets an in-memory pool and is told why. */
function acquirePoolLock(name: string): Promise<boolean> {
  if (!navigator.locks) return Promise.resolve(true);
  return new Promise((resolve) => {
    void navigator.locks.request(`aw-pool-${name}`, { ifAvailable: true }, (lock) => {
      resolve(lock !== null);
      return lock ? new Promise<void>(() => {}) : undefined;
    });
  });
}

/** `aw:boot:<stage>` performance marks (bench/boot.mjs reads them); `at` is epoch ms, e.g. a worker's stage. */
function mark(stage: string, at?: number): void {
  try {
    performance.mark(`aw:boot:${stage}`, at === undefined ? undefined : { startTime: at - performance.timeOrigin });
  } catch {
    /* a mark before the time origin: not worth failing the boot */
  }
}

async function boot(): Promise<void> {
  const app = document.querySelector('aw-app') as AwApp;
  const banners: AwApp['banners'] = [];
  mark('start');
  // What does not need the pool starts beside it: the gateway's service worker, the demo list.
  const base = new URL('./', document.baseURI).href;
  const registration = registerGateway(base);
  registration.catch(() => {}); // reported by startGatewayServices below
  const demo = loadDemoManifest();
  const owner = await acquirePoolLock(poolName);
  const pool = await PoolClient.start({ poolName, memory: !owner, wasm: assets.duckdb, wasmCache: WASM_CACHE, worker: earlyPoolWorker });
  mark('pool-ready');
  for (const [stage, at] of Object.entries(pool.status.boot)) if (at !== null) mark(`worker-${stage}`, at);
  if (!owner) banners.push({ kind: 'error', text: 'The workbench is already open in another tab, which owns the saved pool. This tab works on a temporary in-memory pool: close the other tab and reload to use your saved data.' });
  else if (pool.status.message) banners.push({ kind: 'error', text: pool.status.message });
  for (const i of pool.status.interrupted) banners.push({ kind: 'info', text: `The import of “${i.file}” was interrupted by a reload and rolled back; import the file again. Earlier data is intact.` });

  const gw = await startGatewayServices(pool, base, { sink: owner, registration });
  mark('gateway');
  if (gw.error) banners.push({ kind: 'error', text: gw.error });

  const importer = new WorkerImporter({ pool, worker: assets.ingestWorker, parquetWasmUrl: assets.parquet, mappings: () => mappingStore.enabledSpecs() });
  const tokenizer = new TokenizerService(pool, assets.tokenizerWorker, bundledQwen3);
  const exporter = new WorkerExporter({ pool, worker: assets.exportWorker, parquetWasmUrl: assets.parquet, tokenizer });
  setActiveTokenizer(tokenizer);
  tokenizer.restore().catch((e) => app.notify(`The saved tokenizer could not be loaded: ${e instanceof Error ? e.message : String(e)}`, 'error'));
  // read_parquet('<https or hf:// URL>') in queries, notebooks and exports: read by range, registered, rewritten
  const remote = pageRemoteParquet(pool, assets.remoteParquetWorker, assets.parquet, { endpoint: hubEndpoint, token: hubToken, onRead: (r) => app.notify(describeRead(r, formatBytes)) });
  const wb = new Workbench(pool, importer, exporter, (m, k) => app.notify(m, k));
  wb.tokenizerName = () => tokenizer.info()?.name ?? null;
  app.workbench = wb;
  app.services = wb.services;
  app.banners = banners;
  pool.onRestart((reason) => {
    app.banners = [
      ...app.banners,
      { kind: 'error', text: `The data pool stopped unexpectedly (${reason}) and was restarted. Everything committed before is intact; an import that was running was rolled back — import that file again.` },
    ];
    app.requestUpdate();
  });
  wb.demo = await demo;
  mark('demo-manifest');
  app.requestUpdate();
  app.tabs = [
    { id: 'dashboard', label: 'Dashboard', render: () => html`<aw-dashboard></aw-dashboard>` },
    { id: 'notebook', label: 'Notebook', render: () => html`<aw-notebooks></aw-notebooks>` },
    { id: 'gateway', label: 'Gateway', render: () => html`<aw-gateway></aw-gateway>` },
    { id: 'formats', label: 'Formats', render: () => html`<aw-formats></aw-formats>` },
  ];
  window.addEventListener(START_MAPPING_EVENT, () => app.selectTab('formats'));
  // ?notebook=<url>: the notebook panel opens it read-only; show it.
  if (params.get('notebook')) app.selectTab('notebook');
  const openExample = async (file: string) => {
    app.selectTab('notebook');
    await app.updateComplete;
    openNotebook(await fetchExample(file));
  };
  app.examples = () => html`<h3 style="margin-top:14px">Example notebooks</h3>
    <ul class="examples">${EXAMPLE_NOTEBOOKS.map((e) => html`<li><a href=${`#notebook`} @click=${(ev: Event) => {
      ev.preventDefault();
      void openExample(e.file);
    }}>${e.title}</a></li>`)}</ul>`;
  await app.updateComplete;
  mark('mounted');

  // the whole interface (not a Partial): a documented member left out fails the typecheck (test/unit/workbench-api-doc.test.ts)
  const api: Omit<WorkbenchApi, 'ready'> = {
    ...gw.api,
    ...agentServices(new URL('./', document.baseURI).href),
    importFiles: (...a: Parameters<WorkbenchApi['importFiles']>) => wb.importFiles(...a),
    importUrl: (url: string) => wb.importUrl(url),
    importHub: (reference: string, opts?: { token?: string }) => wb.importHub(reference, { token: opts?.token }),
    hubEndpoint: () => hubEndpoint(),
    remoteReads: () => [...remote.log],
    setHubToken: (token: string | null) => setHubToken(token),
    setHubEndpoint: (url: string | null) => setHubEndpoint(url),
    query: (sql: string) => wb.query(sql),
    exportQuery: (sql: string, opts: { format: 'parquet' | 'jsonl' | 'csv' }) => wb.exportQuery(sql, opts),
    exportDataset: (opts: Parameters<WorkbenchApi['exportDataset']>[0]) => wb.exportDataset(opts),
    exportDatasetParts: (...a: Parameters<WorkbenchApi['exportDatasetParts']>) => wb.exportDatasetParts(...a),
    exportHubDataset: (...a: Parameters<WorkbenchApi['exportHubDataset']>) => wb.exportHubDataset(...a),
    loadDemoData: () => wb.loadDemoData(),
    clearPool: () => wb.clearPool(),
    compactPool: () => wb.compactPool(),
    openNotebook: (markdown: string) => {
      app.selectTab('notebook');
      openNotebook(markdown);
    },
    runAll: () => runAll(),
    setCuration: (stepIds: string[], patch: CurationPatch) => setCuration(pool, stepIds, patch),
    setCurationWhere: (where: string, patch: CurationPatch) => setCurationWhere(pool, where, patch),
    // fault injection for the e2e tests: only in test builds (`vite build --mode test`)
    ...(TEST_BUILD
      ? {
          debug: {
            /** Make the pool engine fail as a wasm abort does; the page restarts it. */
            crashPool: () => pool.faults!.simulateCrash(),
            poolRestarts: () => pool.restarts,
            /** The next call of a pool method fails with this message. */
            injectPoolFault: (method: string, message: string) => pool.faults!.injectFault(method, message),
            /** Bench: one tokenizer worker encoding `text` with the active profile, on the counting path and with the library's encode (ms per run, tokens). */
            tokenizerEncode: (text: string, runs?: number) => tokenizer.benchEncode(text, runs),
          },
        }
      : {}),
    setTokenizer: (input: TokenizerInput) => tokenizer.set(input),
    tokenizer: () => tokenizer.info(),
    tokenCounts: () => tokenizer.whenCounted(),
    poolStatus: () => ({ persistent: pool.status.persistent, message: pool.status.message, interrupted: pool.status.interrupted }),
  };
  Object.assign(window.workbench, api);
}

let resolveReady!: () => void;
let rejectReady!: (e: unknown) => void;
window.workbench = {
  ready: new Promise<void>((ok, fail) => {
    resolveReady = ok;
    rejectReady = fail;
  }),
} as WorkbenchApi;

const framer = foreignFramer();
if (framer) {
  refuseFramed(framer);
  rejectReady(new Error(`refused to run inside a frame of ${framer}`));
} else boot().then(() => {
  mark('ready');
  resolveReady();
}, (e) => {
  const msg = e instanceof Error ? e.message : String(e);
  const p = document.createElement('p');
  p.setAttribute('role', 'alert');
  p.style.cssText = 'margin:24px;color:#b3261e';
  p.textContent = `The workbench could not start: ${msg}. Reload the page; if it keeps failing, your browser may lack WebAssembly or module workers.`;
  document.body.prepend(p);
  rejectReady(e);
});
