/// <reference lib="webworker" />
/** Remote Parquet for the page's queries: hosts src/hub/remote-reader.ts (protocol: src/hub/api.ts). */
import * as Comlink from 'comlink';
import { createRemoteParquetWorkerApi } from '../src/hub/remote-reader';

Comlink.expose(createRemoteParquetWorkerApi(self));
