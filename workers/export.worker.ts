/// <reference lib="webworker" />
/** Export worker: hosts the export's writer (src/export/writer.ts; its protocol is src/export/api.ts). */
import * as Comlink from 'comlink';
import '../src/util/arrow-bool-fix';
import { createExportWorkerApi } from '../src/export/writer';

Comlink.expose(createExportWorkerApi());
