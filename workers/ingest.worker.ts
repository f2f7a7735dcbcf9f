/// <reference lib="webworker" />
/** Ingest worker: hosts the import of files (src/ingest/ingest-jobs.ts; its protocol is src/ingest/api.ts). */
import * as Comlink from 'comlink';
import { createIngestWorkerApi } from '../src/ingest/ingest-jobs';

Comlink.expose(createIngestWorkerApi((k) => new Worker(new URL('./ingest-shard.worker.ts', import.meta.url), { type: 'module', name: `ingest-shard-${k}` })));
