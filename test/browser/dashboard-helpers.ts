/** Shared setup for the dashboard's browser tests: an <aw-dashboard> on a test pool, mounted and loaded. */
import type { PoolClient } from '../../src/pool/client';
import '../../src/views/dashboard/aw-dashboard';
import type { AwDashboard } from '../../src/views/dashboard/aw-dashboard';
import { testServices } from './curation-data';
import { until } from './helpers';

/** An <aw-dashboard> over `pool`, appended to the document once its summary and list have loaded. */
export async function mountDashboard(pool: PoolClient): Promise<AwDashboard> {
  const el = document.createElement('aw-dashboard');
  el.services = testServices(pool);
  document.body.append(el);
  await until(() => el.summary !== null, 'dashboard summary');
  await el.loaded;
  return el;
}
