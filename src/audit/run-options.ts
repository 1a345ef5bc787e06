/** Options of `runAudit`. Times are wall-clock milliseconds. */
export interface AuditOptions {
  /** The endpoint, checked (`checkTarget`): http only, loopback unless allowed. */
  url: URL;
  /** More paths on the same origin (`--path`): whether they share one budget or have one each. */
  paths: string[];
  /** The header that names a client (`--key-header`, e.g. `X-API-Key`; names compare without case). */
  keyHeader?: string;
  /** Requests in flight at once for the concurrency probe (default 64). */
  inFlight: number;
  /** The audit's wall-time bound: nothing is sent later (default 2 minutes). */
  maxTimeMs: number;
  /** Most requests sent in all (default 5,000). */
  maxRequests: number;
  /** A request without its whole response this long after it left counts as an error. */
  timeoutMs: number;
  /** Also send at the inferred rate this long and judge it against the exact oracle (`--soak`). */
  soakMs?: number;
  /** Stops the audit; the report is partial (`stoppedBy: 'interrupted'`). */
  signal?: AbortSignal;
  /** Told as the audit moves on (a progress line on a terminal). */
  onProgress?: (progress: AuditProgress) => void;
}

/** Where the audit is. */
export interface AuditProgress {
  /** The probe running now. */
  phase: string;
  requests: number;
  elapsedMs: number;
}

/** The defaults the CLI shows in `--help`. */
export const AUDIT_DEFAULTS = {
  inFlight: 64,
  maxTime: '2m',
  maxRequests: 5000,
  timeout: '10s',
} as const;
