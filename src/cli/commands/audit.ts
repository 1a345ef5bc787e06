import { resolve } from 'node:path';
import type { AuditReport } from '../../audit/audit-report.js';
import { judgeExpectation, parseExpectation, tierExpectation, type AuditClaim } from '../../audit/expectation.js';
import { runAudit } from '../../audit/run-audit.js';
import { AUDIT_DEFAULTS, type AuditOptions as RunAuditOptions, type AuditProgress } from '../../audit/run-options.js';
import { checkTarget } from '../../attack/target.js';
import { formatDuration, parseDuration } from '../../core/duration.js';
import { RatelabError, describeValue } from '../../core/errors.js';
import { auditJson } from '../../report/data/audit-json.js';
import { auditHtml } from '../../report/html/audit-html.js';
import type { Command, CommandIO } from '../../report/io.js';
import { renderAuditReport } from '../../report/text/audit-report.js';
import { painter } from '../../report/text/color.js';
import { EXIT, interruptedExitCode } from '../exit-codes.js';
import { serverCounts, type ClientCounts } from '../server-counts.js';
import type { ColorFlags } from '../flag-groups.js';
import { usage, wholeNumberFlag } from '../flags.js';
import { checkOutputs, writeFormats, type OutputTargets } from '../outputs.js';
import { createProgress } from '../progress.js';
import { terminalWidth } from '../terminal-width.js';

/** Options of `ratelab audit` (flag values as text, as commander hands them over). */
export interface AuditOptions extends ColorFlags, OutputTargets<'json' | 'html'> {
  url: string;
  /** More paths on the same origin (`--path`, repeatable). */
  path?: string[];
  /** The header that names a client, e.g. X-API-Key. */
  keyHeader?: string;
  inFlight?: string | number;
  maxTime?: string;
  maxRequests?: string | number;
  timeout?: string;
  soak?: string;
  allowRemote?: boolean;
  /** --metrics-url URL: the server's /metrics, read before and after the audit (see src/cli/server-counts.ts). */
  metricsUrl?: string;
  /** A claim to check, e.g. `token-bucket 20/1s burst 40` (exit 1 on a mismatch). */
  expect?: string;
  /** A tiers file whose `--tier` is the claim. */
  expectFile?: string;
  tier?: string;
  signal?: AbortSignal;
  /** The probe engine; tests give a stand-in (as `ServeOptions.onListening`), else runAudit. */
  audit?: typeof runAudit;
}

/** The most requests in flight the concurrency probe may hold (one identity's sockets). */
const MAX_IN_FLIGHT = 1024;
/** The most requests an audit may be allowed (as attack's bound). */
const MAX_REQUESTS = 10_000_000;

/**
 * `ratelab audit URL`: probes a live endpoint and reports what its limiter does (family,
 * policy, scope, denial, header truthfulness, over-admission), on the terminal and as
 * `--json` (format 1) and `--html`. Every flag is checked before the first request (exit
 * 2). Exit 0 for a completed audit whatever it found; 1 when `--expect` (or
 * `--expect-file`) names a mismatch, each on stderr; 3 when the endpoint gives no answer;
 * 130/143 after the partial report when `options.signal` (SIGINT/SIGTERM) stopped it.
 */
export const auditCommand: Command<AuditOptions> = async (options, io) => {
  const plan = planAudit(options, io);
  const url = await checkTarget(options.url, options.allowRemote === true);
  const metrics = await serverCounts(options.metricsUrl, options.allowRemote === true);
  io.stderr.write(
    `ratelab audit: probing ${url.href} (at most ${plan.maxRequests.toLocaleString('en-US')} requests, ${formatDuration(plan.maxTimeMs)})\n`,
  );
  const measured = await probe({ ...plan.run, url }, options, io);
  const report = plan.claim === undefined ? measured : { ...measured, expect: judgeExpectation(measured, plan.claim) };
  await writeReports(report, options, plan.toStdout, io);
  if (metrics !== undefined) metrics.report(await metrics.read(clientCounts(report)), plan.toStdout, io);
  const partial = partialNote(report, plan);
  if (partial !== undefined) io.stderr.write(`ratelab audit: ${partial}\n`);
  for (const mismatch of report.expect?.mismatches ?? []) io.stderr.write(`ratelab audit: --expect: ${mismatch}\n`);
  if (options.signal?.aborted === true) return interruptedExitCode(options.signal.reason);
  return report.expect?.passed === false ? EXIT.CHECK_FAILED : EXIT.OK;
};

/**
 * What the client saw: every request the audit sent, and the 2xx and 429 among those its
 * timelines record (the probes' requests; a denial of another status counts in neither).
 */
function clientCounts(report: AuditReport): ClientCounts {
  let admitted = 0;
  let denied = 0;
  for (const timeline of report.timelines) {
    for (const shot of timeline.shots) {
      if (shot.status === 429) denied += 1;
      else if (shot.status !== null && shot.status >= 200 && shot.status < 300) admitted += 1;
    }
  }
  return { requests: report.requests, admitted, denied };
}

/** Runs the engine with the progress line on a terminal. */
async function probe(run: RunAuditOptions, options: AuditOptions, io: CommandIO): Promise<AuditReport> {
  const progress = createProgress(io);
  const onProgress = (p: AuditProgress) => progress.update(auditProgressText(p));
  const engine = options.audit ?? runAudit;
  try {
    return await engine({ ...run, onProgress, ...(options.signal ? { signal: options.signal } : {}) });
  } finally {
    progress.done();
  }
}

/** Why a partial report is partial (undefined when every probe had its answer). */
function partialNote(report: AuditReport, plan: AuditPlan): string | undefined {
  const sent = `the report covers the ${report.requests.toLocaleString('en-US')} requests sent`;
  if (report.stoppedBy === 'interrupted') return `interrupted: ${sent}`;
  if (report.stoppedBy === 'max-requests')
    return `stopped at --max-requests ${plan.maxRequests.toLocaleString('en-US')}: ${sent}`;
  if (report.stoppedBy === 'max-time') return `stopped at --max-time ${formatDuration(plan.maxTimeMs)}: ${sent}`;
  return undefined;
}

/** The progress line: `ratelab audit: recovery, 212 requests, 3.4 s`. */
export function auditProgressText(progress: AuditProgress): string {
  const seconds = (progress.elapsedMs / 1000).toFixed(1);
  return `ratelab audit: ${progress.phase}, ${progress.requests.toLocaleString('en-US')} requests, ${seconds} s`;
}

async function writeReports(
  report: AuditReport,
  options: AuditOptions,
  toStdout: boolean,
  io: CommandIO,
): Promise<void> {
  if (!toStdout) io.stdout.write(renderAuditReport(report, painter(io, options.color), terminalWidth(io)));
  await writeFormats(options, { json: () => auditJson(report), html: () => auditHtml(report) }, io);
}

interface AuditPlan {
  /** The engine's options but the URL (checked after, since it may resolve a name). */
  run: Omit<RunAuditOptions, 'url'>;
  maxRequests: number;
  maxTimeMs: number;
  claim: AuditClaim | undefined;
  toStdout: boolean;
}

/** Every flag checked, and the claim read, before anything is sent. */
function planAudit(options: AuditOptions, io: CommandIO): AuditPlan {
  checkScheme(options.url);
  const maxRequests = wholeNumberFlag(
    options.maxRequests ?? AUDIT_DEFAULTS.maxRequests,
    '--max-requests',
    1,
    MAX_REQUESTS,
  );
  const maxTimeMs = parseDuration(options.maxTime ?? AUDIT_DEFAULTS.maxTime, '--max-time');
  const keyHeader = options.keyHeader === undefined ? undefined : checkHeaderName(options.keyHeader);
  const run: Omit<RunAuditOptions, 'url'> = {
    paths: (options.path ?? []).map(checkPath),
    inFlight: wholeNumberFlag(options.inFlight ?? AUDIT_DEFAULTS.inFlight, '--in-flight', 1, MAX_IN_FLIGHT),
    maxTimeMs,
    maxRequests,
    timeoutMs: parseDuration(options.timeout ?? AUDIT_DEFAULTS.timeout, '--timeout'),
    ...(keyHeader === undefined ? {} : { keyHeader }),
    ...(options.soak === undefined ? {} : { soakMs: parseDuration(options.soak, '--soak') }),
  };
  const claim = claimOf(options, io);
  return { run, maxRequests, maxTimeMs, claim, toStdout: checkOutputs(options, io.cwd) };
}

/** `https://` gets its own message: audit speaks plain HTTP only (checkTarget refuses the rest). */
function checkScheme(text: string): string {
  if (/^https:/i.test(text.trim()))
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `URL: https is not supported, audit an http:// URL (got ${describeValue(text)})`,
      {
        field: 'URL',
      },
    );
  return text;
}

/** `--expect`, or `--expect-file` with `--tier`; not both. */
function claimOf(options: AuditOptions, io: CommandIO): AuditClaim | undefined {
  if (options.expect !== undefined && options.expectFile !== undefined)
    throw usage('--expect', 'give either --expect or --expect-file, not both');
  if (options.tier !== undefined && options.expectFile === undefined)
    throw usage('--tier', 'names a tier of --expect-file FILE: give the file too');
  if (options.expect !== undefined) return parseExpectation(options.expect, '--expect');
  if (options.expectFile === undefined) return undefined;
  if (options.tier === undefined) throw usage('--expect-file', 'give --tier NAME: the tier whose policy is the claim');
  return tierExpectation(resolve(io.cwd, options.expectFile), options.tier, options.expectFile);
}

/** A `--path`: a path on the URL's origin, starting with `/`. */
function checkPath(path: string): string {
  if (!path.startsWith('/') || /[\s#]/.test(path))
    throw usage(
      '--path',
      `expected a path on the same origin starting with /, e.g. /api/b, got ${describeValue(path)}`,
    );
  return path;
}

/** The header name, spelled as given (HTTP compares names without case; the report shows the user's spelling). */
function checkHeaderName(name: string): string {
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
    throw usage('--key-header', `expected an HTTP header name, got ${describeValue(name)}`);
  return name;
}
