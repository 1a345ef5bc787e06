import { request } from 'node:http';
import { OUTCOMES, type Outcome } from '../core/decision-event.js';
import { RatelabError } from '../core/errors.js';
import { DECISIONS_SERIES } from '../core/series.js';
import { parseSamples } from '../report/data/prometheus-text.js';
import type { ClientCounts, ServerCounts } from '../report/attack-report.js';
import type { CommandIO } from '../report/io.js';
import { checkTarget } from '../attack/target.js';

// `attack` and `audit --metrics-url URL`: the server's own count of its decisions (the
// `ratelab_decisions_total` of `ratelab serve --metrics`, or of any service exporting it
// with ratelab/metrics), read before and after the run, shown beside what the client saw.

/** Decisions per outcome, summed over every `limiter` and `tier` of the series. */
export type OutcomeCounts = Record<Outcome, number>;

/** How long one read of the metrics may take, whole answer included. */
const READ_TIMEOUT_MS = 5000;
/** A metrics page larger than this is not read to its end (ratelab's own is a few kB). */
const MAX_BYTES = 16 * 1024 * 1024;

/**
 * Reads `url` and sums `ratelab_decisions_total` by outcome. Throws `ENDPOINT_UNAVAILABLE`
 * (exit 3) naming `--metrics-url` when the URL cannot be read, does not answer 200, is not
 * the Prometheus text format, or neither declares nor holds that series.
 */
export async function readServerCounts(url: URL): Promise<OutcomeCounts> {
  const text = await fetchText(url);
  let samples;
  try {
    samples = parseSamples(text);
  } catch (error) {
    throw unavailable(url, `not the Prometheus text format (${(error as Error).message})`, error);
  }
  const counts = Object.fromEntries(OUTCOMES.map((outcome) => [outcome, 0])) as OutcomeCounts;
  let found = false;
  for (const sample of samples) {
    if (sample.name !== DECISIONS_SERIES) continue;
    found = true;
    const outcome = sample.labels.outcome as Outcome;
    if (OUTCOMES.includes(outcome)) counts[outcome] += sample.value;
  }
  // A counter declared but with no sample yet (no decision made) counts none of each.
  if (!found && !text.includes(`# TYPE ${DECISIONS_SERIES} counter`))
    throw unavailable(url, `no ${DECISIONS_SERIES} series (is it ratelab serve --metrics?)`);
  return counts;
}

function fetchText(url: URL): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', agent: false, timeout: READ_TIMEOUT_MS }, (res) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > MAX_BYTES) req.destroy(new Error(`more than ${MAX_BYTES} bytes`));
        else chunks.push(chunk);
      });
      res.on('end', () => {
        if (res.statusCode !== 200) reject(unavailable(url, `answered ${res.statusCode ?? 'no status'}, not 200`));
        else resolve(Buffer.concat(chunks).toString('utf8'));
      });
      res.on('error', (error) => reject(unavailable(url, error.message, error)));
    });
    req.on('timeout', () => req.destroy(new Error(`no complete answer within ${READ_TIMEOUT_MS / 1000} s`)));
    req.on('error', (error: NodeJS.ErrnoException) => reject(unavailable(url, error.code ?? error.message, error)));
    req.end();
  });
}

function unavailable(url: URL, why: string, cause?: unknown): RatelabError {
  return new RatelabError('ENDPOINT_UNAVAILABLE', `--metrics-url: cannot read ${url.href}: ${why}`, {
    field: '--metrics-url',
    cause,
  });
}

export type { ClientCounts, ServerCounts } from '../report/attack-report.js';

/** The server's counts during the run (`after - before`, per outcome), beside the client's. */
export function countsDuring(
  url: URL,
  before: OutcomeCounts,
  after: OutcomeCounts,
  client: ClientCounts,
): ServerCounts {
  const during = Object.fromEntries(OUTCOMES.map((outcome) => [outcome, after[outcome] - before[outcome]]));
  return { url: url.href, during: during as OutcomeCounts, client };
}

/**
 * The server's counts during the run beside the client's, as text:
 *
 * ```
 * server's own counts (http://127.0.0.1:8080/metrics), during the run, beside the client's:
 *   allowed        10  (client: 10 2xx)
 *   denied          3  (client: 3 429)
 *   shadow-denied   0
 *   failed-open     0
 *   failed-closed   0
 *   total          13  (client: 13 requests sent)
 * ```
 */
export function serverCountsText(counts: ServerCounts): string {
  const { client } = counts;
  const during = OUTCOMES.map((outcome): [string, number] => [outcome, counts.during[outcome]]);
  const total = during.reduce((sum, [, count]) => sum + count, 0);
  const beside: Partial<Record<Outcome | 'total', string>> = {
    allowed: `${client.admitted} 2xx`,
    denied: `${client.denied} 429`,
    total: `${client.requests} requests sent`,
  };
  const rows: [string, number][] = [...during, ['total', total]];
  const width = Math.max(...rows.map(([, count]) => String(count).length));
  const lines = rows.map(([name, count]) => {
    const client = beside[name as Outcome | 'total'];
    return `  ${name.padEnd(14)}${String(count).padStart(width)}${client === undefined ? '' : `  (client: ${client})`}`;
  });
  return `server's own counts (${counts.url}), during the run, beside the client's:\n${lines.join('\n')}\n`;
}

/** The second read of `--metrics-url`, after the run: the counts during it, or why it failed. */
export type CountsRead = { counts: ServerCounts; error?: undefined } | { counts?: undefined; error: unknown };

/** `--metrics-url` read once before the run: {@link serverCounts}. */
export interface ServerCountsReader {
  /** Reads the counts again: those during the run, beside `client`'s, or the failure (never thrown here). */
  read(client: ClientCounts): Promise<CountsRead>;
  /**
   * Writes the counts as text (stdout after the report, or stderr when the report's data
   * owns stdout), or throws why they could not be read: called once the report is written.
   */
  report(read: CountsRead, toStdout: boolean, io: CommandIO): void;
}

/**
 * `--metrics-url`, when given: checked as the target is (http:, loopback unless
 * `allowRemote`) and read once now, before the first request, so that an unreadable one
 * fails (exit 3) before anything is sent; read again after the run (see {@link ServerCountsReader}).
 */
export async function serverCounts(
  flag: string | undefined,
  allowRemote: boolean,
): Promise<ServerCountsReader | undefined> {
  if (flag === undefined) return undefined;
  const url = await checkTarget(flag, allowRemote, '--metrics-url');
  const before = await readServerCounts(url);
  return {
    read: (client) =>
      readServerCounts(url).then(
        (after): CountsRead => ({ counts: countsDuring(url, before, after, client) }),
        (error: unknown): CountsRead => ({ error }),
      ),
    report: (read, toStdout, io) => {
      if (read.counts === undefined) throw read.error;
      (toStdout ? io.stderr : io.stdout).write(serverCountsText(read.counts));
    },
  };
}
