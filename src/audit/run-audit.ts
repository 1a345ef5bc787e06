import type { AuditReport } from './audit-report.js';
import type { AuditOptions } from './run-options.js';

/**
 * Probes the endpoint and infers what its limiter does (see docs/audit.md). Never throws
 * for what the endpoint does (its verdict is `none` or `unknown`); throws
 * `ENDPOINT_UNAVAILABLE` when the first request gets no response.
 */
export async function runAudit(options: AuditOptions): Promise<AuditReport> {
  throw new Error(`runAudit: the probes are being written (${options.url.href})`);
}
