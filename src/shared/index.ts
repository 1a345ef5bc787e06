// `ratelab/shared`: one limit shared by the threads and processes of one host. Node
// built-ins only (worker_threads memory, node:cluster IPC); no third-party module.

/** A limiter whose state lives in a SharedArrayBuffer, per-key locked: `createSharedLimiter(algorithm, policy, { maxKeys })`. */
export { createSharedLimiter } from './limiter.js';
/** Another thread's limiter over the same state: `attachSharedLimiter(limiter.handle)`. */
export { attachSharedLimiter } from './limiter.js';
/** A key lives within this many table slots of its home slot (the probe bound). */
export { PROBE_LIMIT } from './limiter.js';
/** The largest buffer a shared limiter takes (1 GiB, in bytes): past it, creation throws `POLICY_TOO_LARGE`. */
export { MAX_BUFFER_BYTES } from './layout.js';
/** The shared limiter (a `RateLimiter` with a `handle`) and its options (`maxKeys`, `maxKeyBytes`, `idleMs`, `lockLeaseMs`, `locking`, `clock`). */
export type { AttachOptions, SharedLimiterOptions, SharedRateLimiter } from './limiter.js';
/** The transferable handle: plain data and the SharedArrayBuffer. */
export type { SharedLimiterHandle } from './handle.js';
/** `per-key` locks (the design) or one `global` lock (the baseline the bench measures against). */
export type { LockingMode } from './locking.js';

/** In the cluster primary: serves a named in-memory limiter to the workers over IPC (options: the memory limiter's and `maxKeyBytes`). */
export { serveClusterLimiter } from './cluster-primary.js';
/** Its options (the memory limiter's, and `maxKeyBytes`: default 128, at most 4096) and what it returns (`close()` stops serving). */
export type { ServeOptions, ServedLimiter } from './cluster-primary.js';
/** In a cluster worker: a limiter the primary decides, with a timeout and a fail mode. */
export { createClusterLimiter } from './cluster-worker.js';
/** Its options (`timeoutMs`, default 100 ms; `failMode`; `expectedNodes` for `local`), the limiter, and a decision with who made it (`reason`). */
export type {
  ClusterDecision,
  ClusterDecisionReason,
  ClusterLimiterOptions,
  ClusterRateLimiter,
} from './cluster-worker.js';
