/** The white-box agent off the main thread: hosts src/agents/white-box.ts (protocol: src/agents/api.ts). */
import * as Comlink from 'comlink';
import type { AgentWorkerApi } from '../src/agents/api';
import { createAgentWorkerApi } from '../src/agents/white-box';

Comlink.expose(createAgentWorkerApi() satisfies AgentWorkerApi);
