// Boots a TypeScript module in a worker thread or cluster worker: registers tsx (the test
// runner's own loader does not reach other threads or processes), then imports the module
// named by workerData.script or RATELAB_TS_WORKER.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData?.script ?? process.env.RATELAB_TS_WORKER);
