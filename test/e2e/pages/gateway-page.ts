// A stand-in app page for the gateway e2e test until the app boot wires the gateway: pool + gateway + sink.
import { assets } from '../../../src/assets';
import { startGatewayServices } from '../../../src/gateway/boot';
import { openJournal } from '../../../src/gateway/journal';
import { PoolClient } from '../../../src/pool/client';
import '../../../src/views/gateway/aw-gateway';

const params = new URLSearchParams(location.search);
const base = new URL('../../../', location.href).href;

async function boot() {
  const pool = await PoolClient.start({ poolName: params.get('pool') ?? 'gw-e2e', wasm: assets.duckdb, worker: assets.poolWorker });
  const gw = await startGatewayServices(pool, base);
  if (gw.error) throw new Error(gw.error);
  Object.assign(window.workbench, {
    ...gw.api,
    query: (sql: string) => pool.rows(sql),
    controlled: () => !!navigator.serviceWorker.controller,
    journal: async () => (await openJournal()).getAll('journal'),
  });
}

window.workbench = { ready: boot() } as typeof window.workbench;
