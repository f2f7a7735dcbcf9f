/**
 * What every view can reach (provided by <aw-app> through @lit/context): the pool broker, the
 * importer and the exporter. Views never talk to DuckDB directly (docs/architecture.md).
 */
import { createContext } from '@lit/context';
import type { PoolClient } from '../../pool/client';
import type { Exporter, Importer } from '../../contract/reports';
import type { ImportQueue } from '../../ingest/import-queue';

export interface Services {
  pool: PoolClient;
  importer: Importer;
  exporter: Exporter;
  /** The page's import jobs (the import panel shows them; window.workbench and demo loading add to them). */
  imports: ImportQueue;
  /** Show a short message to the user (status strip / toast). */
  notify(message: string, kind?: 'info' | 'error'): void;
}

export const servicesContext = createContext<Services>(Symbol('aw-services'));
