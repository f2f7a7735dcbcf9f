/**
 * The page's imports: each file or URL becomes a job (progress, report, cancel) on one list that the
 * import panel shows and `window.workbench.importFiles` / drag-and-drop / demo loading all add to.
 */
import type { Importer, ImportOptions, ImportProgress, ImportReport } from '../contract/reports';

export interface ImportJob {
  key: number;
  file: string;
  bytes: number;
  progress: ImportProgress | null;
  report: ImportReport | null;
  controller: AbortController;
  /** The file itself (not for URL imports), to hand to the Formats tab when its format is not recognized. */
  source?: File;
}

/** How many jobs the list keeps (newest first). */
const KEEP = 50;

export class ImportQueue {
  jobs: ImportJob[] = [];
  private seq = 1;
  private listeners = new Set<() => void>();

  constructor(private importer: Importer) {}

  /** Be told when the job list changes. */
  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Import files one after another (formats that join across files see the others); resolves with their reports. */
  async importFiles(files: File[], opts: Pick<ImportOptions, 'shards' | 'format'> = {}): Promise<ImportReport[]> {
    const jobs = files.map((f): ImportJob => ({ key: this.seq++, file: f.name, bytes: f.size, progress: null, report: null, controller: new AbortController(), source: f }));
    this.set([...jobs, ...this.jobs].slice(0, KEEP));
    const reports: ImportReport[] = [];
    for (const [i, f] of files.entries()) {
      const job = jobs[i];
      const [rep] = await this.importer.importFiles([f], {
        ...opts,
        siblings: files,
        signal: job.controller.signal,
        onProgress: (p) => this.patch(job.key, { progress: p }),
      });
      this.patch(job.key, { report: rep });
      reports.push(rep);
    }
    return reports;
  }

  async importUrl(url: string): Promise<ImportReport> {
    const job: ImportJob = { key: this.seq++, file: url, bytes: 0, progress: null, report: null, controller: new AbortController() };
    this.set([job, ...this.jobs].slice(0, KEEP));
    const rep = await this.importer.importUrl(url, { signal: job.controller.signal, onProgress: (p) => this.patch(job.key, { progress: p, file: p.file, bytes: p.bytesTotal }) });
    this.patch(job.key, { report: rep, file: rep.file });
    return rep;
  }

  /**
   * One file fetched first (a Hub file: `download` reports the bytes received), then imported like a dropped file; the
   * job shows the download, then the import. A failed download is the job's failed report (its message says why).
   */
  async importDownloaded(name: string, bytes: number, download: (signal: AbortSignal, onBytes: (received: number) => void) => Promise<Blob>): Promise<ImportReport> {
    const job: ImportJob = { key: this.seq++, file: name, bytes, progress: null, report: null, controller: new AbortController() };
    this.set([job, ...this.jobs].slice(0, KEEP));
    const progress = (bytesRead: number) => this.patch(job.key, { progress: { file: name, bytesRead, bytesTotal: bytes, records: 0, rows: 0, phase: 'downloading' } });
    let rep: ImportReport;
    try {
      const blob = await download(job.controller.signal, progress);
      [rep] = await this.importer.importFiles([new File([blob], name)], { signal: job.controller.signal, onProgress: (p) => this.patch(job.key, { progress: p }) });
    } catch (e) {
      const cancelled = job.controller.signal.aborted;
      rep = {
        file: name,
        format: 'unknown',
        confidence: 0,
        records: 0,
        rows: 0,
        added: 0,
        rejected: [],
        warnings: [],
        status: cancelled ? 'cancelled' : 'failed',
        message: cancelled ? 'The download was cancelled; nothing of it was kept.' : e instanceof Error ? e.message : String(e),
        importId: null,
        bytes,
        ms: 0,
      };
    }
    this.patch(job.key, { report: rep });
    return rep;
  }

  cancel(key: number): void {
    this.jobs.find((j) => j.key === key)?.controller.abort();
  }

  private patch(key: number, patch: Partial<ImportJob>): void {
    this.set(this.jobs.map((j) => (j.key === key ? { ...j, ...patch } : j)));
  }

  private set(jobs: ImportJob[]): void {
    this.jobs = jobs;
    for (const fn of this.listeners) fn();
  }
}
