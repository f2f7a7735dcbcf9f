/** An <aw-import-panel> on a pool emptied first, in a <test-services-host> that provides its services (the imports page's suites). */
import type { Exporter } from '../../src/contract/reports';
import type { PoolClient } from '../../src/pool/client';
import '../../src/views/data/aw-import-panel';
import { importerFor, withImports } from './helpers';
import { servicesHost } from './services-host';

export async function importPanelOnEmptyPool(pool: PoolClient) {
  await pool.clear();
  const host = servicesHost();
  host.services = withImports({ pool, importer: importerFor(pool), exporter: {} as Exporter, notify: () => {} });
  const panel = document.createElement('aw-import-panel');
  host.append(panel);
  document.body.append(host);
  await panel.updateComplete;
  return { host, panel };
}
