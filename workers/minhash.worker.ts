/// <reference lib="webworker" />
/** Near-duplicate detection off the main thread: hosts src/curation/minhash.ts `minHashWorkerApi` (protocol: src/curation/api.ts). */
import * as Comlink from 'comlink';
import type { MinHashWorkerApi } from '../src/curation/api';
import { minHashWorkerApi } from '../src/curation/minhash';

Comlink.expose(minHashWorkerApi satisfies MinHashWorkerApi);
