/// <reference lib="webworker" />
/** Shard worker: hosts one shard reader of a large JSON Lines file for the ingest worker (src/ingest/shards.ts; protocol: src/ingest/api.ts). */
import * as Comlink from 'comlink';
import type { ShardWorkerApi } from '../src/ingest/api';
import { shardWorkerApi } from '../src/ingest/shards';

Comlink.expose(shardWorkerApi satisfies ShardWorkerApi);
