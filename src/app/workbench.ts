/**
 * The Workbench service, built once at boot: what the views (through Services) and the scripting API
 * (`window.workbench`, workbench-api.ts) both call. Importing, demo data, queries, exports and
 * clearing live here, not in elements: the API never reaches into a view's shadow DOM.
 */
import type { ExportDatasetOptions, Exporter, ExportFormat, Importer, ImportReport } from '../contract/reports';
import type { PoolClient } from '../pool/client';
import type { Row } from '../pool/rows';
import type { Compaction } from '../pool/api';
import { exportPartsTo, type PartsOptions, type PartsReport } from '../export/parts';
import { exportHubDatasetTo, type HubDatasetOptions, type HubDatasetReport } from '../hub/hub-dataset';
import { ImportQueue } from '../ingest/import-queue';
import { type HubImportReports, importFromHub, poolHubHost } from '../hub/hub-import';
import { hubRefString, parseHubRef } from '../hub/hub-ref';
import { hubEndpoint, hubToken } from '../hub/settings';
import { sqlString } from '../pool/sql';
import type { Services } from '../views/kit/services';
import type { WorkbenchImportOptions } from './workbench-api';

export interface DemoFile {
  file: string;
  description: string;
}

/** The bundled demo data's list (notebooks/data/manifest.json), or none when it is not served. */
export async function loadDemoManifest(base: string = document.baseURI): Promise<DemoFile[]> {
  try {
    const res = await fetch(new URL('notebooks/data/manifest.json', base));
    return res.ok ? ((await res.json()) as DemoFile[]) : [];
  } catch {
    return [];
  }
}

export class Workbench {
  readonly imports: ImportQueue;
  /** The bundled demo files (empty when the build serves none). */
  demo: DemoFile[] = [];
  /** The active tokenizer profile's name (the dataset card's token statistics), set at boot. */
  tokenizerName: () => string | null = () => null;

  constructor(
    readonly pool: PoolClient,
    readonly importer: Importer,
    readonly exporter: Exporter,
    private notifyFn: (message: string, kind?: 'info' | 'error') => void,
  ) {
    this.imports = new ImportQueue(importer);
  }

  /** What every view can reach (provided by <aw-app> through @lit/context). */
  get services(): Services {
    return { pool: this.pool, importer: this.importer, exporter: this.exporter, imports: this.imports, notify: (m, k) => this.notifyFn(m, k) };
  }

  importFiles(files: File[], opts?: WorkbenchImportOptions): Promise<ImportReport[]> {
    return this.imports.importFiles(files, { shards: opts?.shards, format: opts?.format });
  }

  /** A URL, or an hf:// reference / Hub URL naming one file of a dataset (fetched from the Hub endpoint, with the tab's token). */
  async importUrl(url: string): Promise<ImportReport> {
    const ref = parseHubRef(url, hubEndpoint());
    if (!ref) return this.imports.importUrl(url);
    const reports = await this.importHub(url, { fileOnly: true });
    return reports[0];
  }

  /**
   * Every trace file under an hf:// reference or Hub URL (a folder, or one file), each imported as its own job; one
   * report per file, and the files left out (`skipped`, with why). `token` (else the tab's) reads gated and private datasets.
   */
  async importHub(reference: string, opts: { token?: string | null; fileOnly?: boolean } = {}): Promise<HubImportReports> {
    const ref = parseHubRef(reference, hubEndpoint());
    if (!ref) throw new Error(`${reference} is not a Hugging Face dataset reference: write hf://datasets/<owner>/<name>[/<path>][@<revision>] or paste a huggingface.co/datasets/… URL.`);
    const host = poolHubHost(this.pool, this.imports, sqlString);
    return importFromHub(ref, host, {
      endpoint: hubEndpoint(),
      token: opts.token ?? hubToken(),
      onListed: opts.fileOnly
        ? (listing) => {
            if (listing.ref.kind !== 'file') throw new Error(`${hubRefString(listing.ref)} is a folder of ${listing.files.length} files: import it with workbench.importHub (one report per file), or name one file.`);
          }
        : undefined,
    });
  }

  /** Import the bundled demo files one after another (they show on the import list like any import). */
  async loadDemoData(base: string = document.baseURI, onFile?: (done: number, total: number) => void): Promise<ImportReport[]> {
    const out: ImportReport[] = [];
    for (const d of this.demo) {
      onFile?.(out.length, this.demo.length);
      out.push(await this.imports.importUrl(new URL(`notebooks/data/${d.file}`, base).href));
    }
    const added = out.reduce((a, r) => a + r.added, 0);
    this.notifyFn(`Demo data loaded: ${added} new steps from ${out.length} files.`);
    return out;
  }

  query(sql: string): Promise<Row[]> {
    return this.pool.rows(sql);
  }

  exportQuery(sql: string, opts: { format: ExportFormat }): Promise<Blob> {
    return this.exporter.exportQuery(sql, opts);
  }

  exportDataset(opts: ExportDatasetOptions): Promise<Blob> {
    return this.exporter.exportDataset(opts);
  }

  exportDatasetParts(opts: ExportDatasetOptions & PartsOptions, target?: FileSystemDirectoryHandle | null): Promise<PartsReport & { zip?: Blob }> {
    const { partitionBy, maxFileBytes, ...rest } = opts;
    return exportPartsTo({ exporter: this.exporter, rows: (sql) => this.pool.rows(sql) }, rest, { partitionBy, maxFileBytes }, target);
  }

  /**
   * A dataset folder the Hub understands (decision 073): every layout as part files per split, the README.md card,
   * optionally the sessions as STS files. Into `target` (a new sub-folder of it) or, without one, returned as a zip.
   */
  exportHubDataset(opts: HubDatasetOptions, target?: FileSystemDirectoryHandle | null): Promise<HubDatasetReport & { zip?: Blob }> {
    return exportHubDatasetTo({ exporter: this.exporter, rows: (sql) => this.pool.rows(sql), tokenizer: () => this.tokenizerName() }, opts, target);
  }

  clearPool(): Promise<void> {
    return this.pool.clear();
  }

  compactPool(): Promise<Compaction> {
    return this.pool.compact();
  }
}
