// Entry of the CLI's worker threads: registers the tsx loader in this thread (Node 20 does not pass a
// parent's --import loader to workers), then loads the thread's TypeScript module named in workerData.entry.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
