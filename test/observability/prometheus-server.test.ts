import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURE_HOST, startChildServer, startOnFreePort, type Fixture } from '../audit/fixtures/child-server.js';
import { get, getMany } from '../http/support.js';

// The metrics are real, not just well-formed text: the installed CLI (bin/ -> dist/) runs
// `ratelab serve --metrics`, a real Prometheus server (Debian's 2.42 binary, unpacked into
// .cache/prometheus by `scripts/fetch-debian-binary.sh prometheus`, which .ci/run calls; never a service)
// scrapes it every second, and PromQL through its HTTP API must count exactly the denials
// the test caused. A missing binary fails the test: skipping would pass a run that proved nothing.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin/ratelab.js');
const FETCH_SCRIPT = 'scripts/fetch-debian-binary.sh prometheus';

/** The Prometheus to run: RATELAB_PROMETHEUS, the unpacked cache, or one on PATH. */
function prometheusBinary(): string {
  const cached = join(process.env.RATELAB_PROMETHEUS_DIR ?? join(ROOT, '.cache/prometheus'), 'prometheus');
  for (const candidate of [process.env.RATELAB_PROMETHEUS, cached]) {
    if (candidate !== undefined && existsSync(candidate)) return candidate;
  }
  try {
    return execFileSync('sh', ['-c', 'command -v prometheus'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(
      `no Prometheus server binary (looked at RATELAB_PROMETHEUS, ${cached} and PATH): run \`bash ${FETCH_SCRIPT}\` (Debian's package, unpacked; .ci/run does it), or set RATELAB_PROMETHEUS to a prometheus binary`,
    );
  }
}

const scratch = mkdtempSync(join(tmpdir(), 'ratelab-prometheus-'));
const fixtures: Fixture[] = [];
afterAll(async () => {
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.stop()));
  rmSync(scratch, { recursive: true, force: true });
});

// A sliding log of 10 per hour: no window edge can fall inside the run. `trial` is in shadow,
// so its would-be denials are `shadow-denied`, never `denied`.
const TIERS = `tiers:
  enforced: { algorithm: sliding-log, limit: 10, window: 1h }
  trial: { algorithm: sliding-log, limit: 10, window: 1h, mode: shadow }
clients:
  trialist: trial
default: enforced
`;

/** `ratelab serve --metrics` as a process on a free loopback port. */
async function startServe(): Promise<Fixture> {
  const tiers = join(scratch, 'tiers.yaml');
  writeFileSync(tiers, TIERS);
  const fixture = await startChildServer({
    name: 'ratelab serve',
    command: process.execPath,
    args: [BIN, 'serve', '--tiers', tiers, '--port', '0', '--host', FIXTURE_HOST, '--metrics', '--quiet'],
    ready: { stream: 'stderr' },
  });
  fixtures.push(fixture);
  return fixture;
}

/** Prometheus scraping `target` (host:port) every second, its data in a temporary folder. */
async function startPrometheus(target: string): Promise<Fixture> {
  const command = prometheusBinary();
  const dir = mkdtempSync(join(scratch, 'prometheus-'));
  const config = join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    `global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: ratelab
    metrics_path: /metrics
    static_configs:
      - targets: ['${target}']
`,
  );
  const fixture = await startOnFreePort((port) => ({
    name: 'prometheus',
    command,
    args: [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=${FIXTURE_HOST}:${port}`,
      '--log.level=warn',
    ],
    ready: { port },
    timeoutMs: 30_000,
  }));
  fixtures.push(fixture);
  return fixture;
}

/** One PromQL instant query through the HTTP API: the first result's value, or undefined when empty. */
async function query(prometheus: string, promql: string): Promise<number | undefined> {
  const reply = await get(`${prometheus}/api/v1/query?query=${encodeURIComponent(promql)}`);
  expect(reply.status).toBe(200);
  const body = JSON.parse(reply.body) as { status: string; data: { result: { value: [number, string] }[] } };
  expect(body.status).toBe('success');
  const [first] = body.data.result;
  return first === undefined ? undefined : Number(first.value[1]);
}

/** Waits (polling, at most `ms`) until Prometheus holds a scrape of the job that began after `afterSeconds`. */
async function scrapedAfter(prometheus: string, afterSeconds: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const last = await query(prometheus, 'timestamp(up{job="ratelab"} == 1)');
    if (last !== undefined && last > afterSeconds) return;
    if (Date.now() > deadline)
      throw new Error(`Prometheus made no successful scrape after ${afterSeconds} within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('a real Prometheus scraping ratelab serve --metrics', () => {
  it('counts through PromQL exactly the denials the requests caused, and nothing for /metrics itself', async () => {
    const serve = await startServe();
    const prometheus = await startPrometheus(new URL(serve.url).host);

    // why: 25 requests of one address on a tier of 10: 15 denied; 12 of the trial tier: 2 shadow-denied.
    const enforced = await getMany(`${serve.url}/`, 25);
    const trial = await getMany(`${serve.url}/`, 12, { headers: { 'X-API-Key': 'trialist' } });
    expect(enforced.filter((r) => r.status === 429)).toHaveLength(15);
    expect(trial.every((r) => r.status === 200)).toBe(true);
    const sentBy = Date.now() / 1000;

    await scrapedAfter(prometheus.url, sentBy, 20_000);
    expect(await query(prometheus.url, 'sum(ratelab_decisions_total{outcome="denied"})')).toBe(15);
    expect(await query(prometheus.url, 'sum(ratelab_decisions_total{outcome="shadow-denied"})')).toBe(2);
    expect(await query(prometheus.url, 'sum(ratelab_decisions_total{outcome="allowed"})')).toBe(20);
    // why: Prometheus's own scrapes of /metrics (on the API's port) are neither limited nor counted.
    expect(await query(prometheus.url, 'sum(ratelab_decisions_total)')).toBe(37);
    expect(
      await query(prometheus.url, 'ratelab_decisions_total{tier="enforced",outcome="denied",limiter="serve"}'),
    ).toBe(15);
  }, 90_000);
});
