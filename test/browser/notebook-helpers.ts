/** Shared setup for the notebook's browser tests: services with an inert importer/exporter, a mounted <aw-notebooks>. */
import { NotebookStore } from '../../src/notebook/storage';
import type { PoolClient } from '../../src/pool/client';
import '../../src/views/notebook/aw-notebooks';
import type { AwNotebooks } from '../../src/views/notebook/aw-notebooks';
import type { Services } from '../../src/views/kit/services';
import { withImports } from './helpers';

/** Services over `pool` whose importer and exporter do nothing (the notebook tests never import or export). */
export function notebookServices(pool: PoolClient): Services {
  return withImports({
    pool,
    importer: { importFiles: async () => [], importUrl: async () => { throw new Error('unused'); } },
    exporter: { exportQuery: async () => new Blob([]), exportDataset: async () => new Blob([]), datasetSql: () => '' },
    notify: () => {},
  });
}

/** An <aw-notebooks> over the IndexedDB store `storeName`, not read from the URL, inside `host`; the host is appended to the document. */
export function mountNotebooks(host: HTMLElement, storeName: string): AwNotebooks {
  const p = document.createElement('aw-notebooks') as AwNotebooks;
  p.store = new NotebookStore(storeName);
  p.fromUrl = false;
  host.append(p);
  document.body.append(host);
  return p;
}
