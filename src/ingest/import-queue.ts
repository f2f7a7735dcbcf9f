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
