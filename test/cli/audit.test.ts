// `ratelab audit`: its flags, outputs and exit codes, with a stand-in for the probe engine
// (the `audit` option) returning the sample report, so nothing here needs a live endpoint.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AuditReport } from '../../src/audit/audit-report.js';
import type { AuditOptions as EngineOptions } from '../../src/audit/run-options.js';
import { auditCommand, auditProgressText, type AuditOptions } from '../../src/cli/commands/audit.js';
import { exitCodeOf } from '../../src/cli/exit-codes.js';
import { run } from '../../src/cli/main.js';
import { RatelabError } from '../../src/core/errors.js';
import { bufferIO } from '../../src/report/io.js';
import { SAMPLE_REPORT } from '../audit/sample-report.js';

const scratch = mkdtempSync(join(tmpdir(), 'ratelab-audit-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const URL_TEXT = 'http://127.0.0.1:8080/';

/** A stand-in engine returning `report`, recording the options it was given. */
function fakeEngine(report: AuditReport = SAMPLE_REPORT): {
  audit: (o: EngineOptions) => Promise<AuditReport>;
  calls: EngineOptions[];
} {
  const calls: EngineOptions[] = [];
  return {
    calls,
    audit: async (options) => {
      calls.push(options);
      return report;
    },
  };
}

/** Runs the command as bin/ would: a RatelabError becomes its exit code and one line on stderr. */
async function audit(
  options: Partial<AuditOptions>,
  engine = fakeEngine(),
  io = bufferIO({ cwd: scratch }),
): Promise<{ code: number; out: string; err: string; calls: EngineOptions[] }> {
  let code: number;
  try {
    code = await auditCommand({ url: URL_TEXT, audit: engine.audit, ...options }, io);
  } catch (error) {
    if (!(error instanceof RatelabError)) throw error;
    io.stderr.write(`ratelab: ${error.message}\n`);
    code = exitCodeOf(error.code);
  }
  return { code, out: io.out(), err: io.err(), calls: engine.calls };
}

describe('ratelab audit runs the engine with the flags checked', () => {
  it('prints the terminal report and exits 0 for a completed audit', async () => {
    const { code, out, err } = await audit({});
    expect(code).toBe(0);
    expect(out.split('\n')[0]).toMatch(/^token bucket \(GCRA makes the same decisions\), 20 per 1s, burst 40, per/);
    expect(out).toContain('612 requests in 8.4 s');
    expect(err).toBe('ratelab audit: probing http://127.0.0.1:8080/ (at most 5,000 requests, 2m)\n');
  });

  it('exits 0 whatever the audit found: nothing limited is a finding, not a failure', async () => {
    const none: AuditReport = { ...SAMPLE_REPORT, algorithm: { ...SAMPLE_REPORT.algorithm, family: 'none' } };
    expect((await audit({}, fakeEngine(none))).code).toBe(0);
  });

  it('hands the engine the defaults', async () => {
    const { calls } = await audit({});
    expect(calls).toHaveLength(1);
    const [options] = calls;
    expect(options?.url.href).toBe(URL_TEXT);
    expect(options).toMatchObject({
      paths: [],
      inFlight: 64,
      maxTimeMs: 120_000,
      maxRequests: 5000,
      timeoutMs: 10_000,
    });
    expect(options).not.toHaveProperty('keyHeader');
    expect(options).not.toHaveProperty('soakMs');
  });

  it('hands the engine every flag, parsed', async () => {
    const { calls } = await audit({
      path: ['/a', '/b'],
      keyHeader: 'X-API-Key',
      inFlight: '32',
      maxTime: '30s',
      maxRequests: '2000',
      timeout: '2s',
      soak: '1m',
    });
    expect(calls[0]).toMatchObject({
      paths: ['/a', '/b'],
      keyHeader: 'X-API-Key',
      inFlight: 32,
      maxTimeMs: 30_000,
      maxRequests: 2000,
      timeoutMs: 2000,
      soakMs: 60_000,
    });
  });
});

describe('the progress line', () => {
  it('says the probe, the requests sent and the time', () => {
    expect(auditProgressText({ phase: 'recovery', requests: 1212, elapsedMs: 3420 })).toBe(
      'ratelab audit: recovery, 1,212 requests, 3.4 s',
    );
  });

  it('is fed by the engine, and on a terminal leaves nothing behind once the report is printed', async () => {
    const io = bufferIO({ cwd: scratch, tty: true });
    const engine = {
      calls: [] as EngineOptions[],
      audit: async (options: EngineOptions) => {
        engine.calls.push(options);
        options.onProgress?.({ phase: 'discovery', requests: 1, elapsedMs: 0 });
        return SAMPLE_REPORT;
      },
    };
    const { code, err } = await audit({}, engine, io);
    expect(code).toBe(0);
    expect(engine.calls[0]?.onProgress).toBeTypeOf('function');
    // The line is drawn only after a second (createProgress); drawn or not, none is left.
    expect(err.replace(/\r\u001b\[K[^\r]*/g, '')).toBe(
      'ratelab audit: probing http://127.0.0.1:8080/ (at most 5,000 requests, 2m)\n',
    );
    expect(err).not.toMatch(/\r\u001b\[K[^\r\n]+$/);
  });
});

describe('--expect turns the audit into a gate', () => {
  it('exits 0 on a claim the audit bears out, and says so', async () => {
    const { code, out } = await audit({ expect: 'gcra 20/1s burst 40 per header X-API-Key' });
    expect(code).toBe(0);
    expect(out).toContain('--expect token-bucket 20/1s burst 40 per header X-API-Key: passed');
  });

  it('exits 1 naming each mismatch on stderr, after the report', async () => {
    const { code, out, err } = await audit({ expect: 'fixed-window 100/1s per address' });
    expect(code).toBe(1);
    expect(err.split('\n').filter((line) => line.includes('--expect:'))).toEqual([
      'ratelab audit: --expect: family: expected fixed-window, measured token-bucket',
      'ratelab audit: --expect: limit: expected 100 per 1s, measured 20 (19-21)',
      'ratelab audit: --expect: scope: expected per address, measured per header X-API-Key',
    ]);
    expect(out).toContain('--expect fixed-window 100/1s per address: 3 mismatched');
  });

  it('writes the verdict into the JSON', async () => {
    const { code, out } = await audit({ expect: 'token-bucket 40/1s', json: '-' });
    expect(code).toBe(1);
    expect(JSON.parse(out).expect).toEqual({
      claim: 'token-bucket 40/1s',
      passed: false,
      mismatches: ['rate: expected 40 per 1s, measured 20.4 per 1s (19.6-21.1)'],
    });
  });

  it('takes the claim from a tier of a tiers file', async () => {
    const tiers = join(scratch, 'tiers.yaml');
    writeFileSync(
      tiers,
      'tiers:\n  pro: { algorithm: gcra, limit: 20, window: 1s, burst: 40 }\n  free: { algorithm: fixed-window, limit: 5, window: 1s }\ndefault: free\n',
    );
    expect((await audit({ expectFile: 'tiers.yaml', tier: 'pro' })).code).toBe(0);
    const free = await audit({ expectFile: 'tiers.yaml', tier: 'free' });
    expect(free.code).toBe(1);
    expect(free.err).toContain('--expect: family: expected fixed-window, measured token-bucket');
  });
});

describe('outputs', () => {
  it('--json - writes the report alone on stdout (format 1)', async () => {
    const { code, out } = await audit({ json: '-' });
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual(SAMPLE_REPORT);
  });

  it('--html FILE writes the self-contained page, the terminal report still on stdout', async () => {
    const { code, out } = await audit({ html: 'audit.html', json: 'audit.json' });
    expect(code).toBe(0);
    expect(out).toContain('token bucket');
    const html = readFileSync(join(scratch, 'audit.html'), 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('ratelabAuditCharts');
    expect(JSON.parse(readFileSync(join(scratch, 'audit.json'), 'utf8')).format).toBe(1);
  });
});

describe('exit codes of a run cut short or without an endpoint', () => {
  it('exits 0 when a bound stopped it, saying which on stderr', async () => {
    const bounded: AuditReport = { ...SAMPLE_REPORT, stoppedBy: 'max-time' };
    const { code, err } = await audit({ maxTime: '30s' }, fakeEngine(bounded));
    expect(code).toBe(0);
    expect(err).toContain('ratelab audit: stopped at --max-time 30s: the report covers the 612 requests sent\n');
  });

  it('exits 143 after the partial report when SIGTERM stopped it (130 for SIGINT)', async () => {
    const partial: AuditReport = { ...SAMPLE_REPORT, stoppedBy: 'interrupted', concurrency: null };
    for (const [signal, exit] of [
      ['SIGTERM', 143],
      ['SIGINT', 130],
    ] as const) {
      const controller = new AbortController();
      controller.abort(new Error(signal));
      const { code, out, err } = await audit({ signal: controller.signal }, fakeEngine(partial));
      expect(code).toBe(exit);
      expect(out).toContain('interrupted: the report is partial');
      expect(err).toContain('ratelab audit: interrupted: the report covers the 612 requests sent\n');
    }
  });

  it('exits 3 when the engine finds no endpoint', async () => {
    const engine = {
      calls: [],
      audit: async () => {
        throw new RatelabError('ENDPOINT_UNAVAILABLE', 'URL: no response from 127.0.0.1:8080 (ECONNREFUSED)', {
          field: 'URL',
        });
      },
    };
    const { code, out, err } = await audit({}, engine);
    expect(code).toBe(3);
    expect(out).toBe('');
    expect(err).toMatch(/ratelab: URL: no response from 127\.0\.0\.1:8080 \(ECONNREFUSED\)\n$/);
  });
});

describe('every flag is checked before any request (exit 2, one line)', () => {
  it.each<[Partial<AuditOptions>, RegExp, string]>([
    // options, the error, why
    [{ url: 'https://127.0.0.1:8443/' }, /^URL: https is not supported, audit an http:\/\/ URL/, 'TLS'],
    [{ url: 'not a url' }, /^URL: expected an http:\/\/ URL, got "not a url"/, 'not a URL'],
    [{ url: 'ftp://127.0.0.1/' }, /^URL: only http:\/\/ is supported/, 'another scheme'],
    [{ url: 'http://10.1.2.3/' }, /--allow-remote/, 'a remote address without --allow-remote'],
    [{ expect: 'token-bucket 20/1x' }, /^--expect: expected a window such as 500ms/, 'a bad claim'],
    [{ maxTime: 'soon' }, /^--max-time: expected a duration/, 'a bad duration'],
    [{ timeout: '0' }, /^--timeout: expected a duration/, 'a zero timeout'],
    [{ soak: 'long' }, /^--soak: expected a duration/, 'a bad soak'],
    [{ inFlight: '0' }, /^--in-flight: expected a whole number from 1 to 1024, got "0"/, 'nothing in flight'],
    [{ maxRequests: 'many' }, /^--max-requests: expected a whole number/, 'not a number'],
    [{ path: ['api/b'] }, /^--path: expected a path on the same origin starting with \//, 'a relative path'],
    [{ keyHeader: 'X API Key' }, /^--key-header: expected an HTTP header name/, 'not a header name'],
    [{ tier: 'pro' }, /^--tier: names a tier of --expect-file FILE/, '--tier alone'],
    [{ expectFile: 'tiers.yaml' }, /^--expect-file: give --tier NAME/, '--expect-file alone'],
    [
      { expect: 'none', expectFile: 'tiers.yaml', tier: 'pro' },
      /^--expect: give either --expect or --expect-file/,
      'two claims',
    ],
    [{ expectFile: 'missing.yaml', tier: 'pro' }, /missing\.yaml/, 'a tiers file that is not there'],
    [{ json: '-', html: '-' }, /^--json: only one of --json and --html can go to stdout/, 'two outputs on stdout'],
  ])('%j', async (options, message) => {
    const { code, err, calls } = await audit(options);
    expect(code).toBe(2);
    expect(calls).toEqual([]);
    const lines = err.split('\n').filter((line) => line !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]?.replace(/^ratelab: /, '')).toMatch(message);
  });

  it('goes through the CLI: exit 2 and one line, before anything is sent', async () => {
    const io = bufferIO();
    expect(await run(['audit', 'https://127.0.0.1:8443/'], io)).toBe(2);
    expect(io.err()).toMatch(
      /^ratelab: URL: https is not supported, audit an http:\/\/ URL \(got "https:\/\/127\.0\.0\.1:8443\/"\)\n$/,
    );
  });

  it('lists its flags in --help', async () => {
    const io = bufferIO();
    expect(await run(['audit', '--help'], io)).toBe(0);
    for (const flag of [
      '--path <path>',
      '--key-header <name>',
      '--in-flight <n>',
      '--max-time <duration>',
      '--max-requests <n>',
      '--timeout <duration>',
      '--soak <duration>',
      '--allow-remote',
      '--expect <claim>',
      '--expect-file <file>',
      '--tier <name>',
      '--json [file]',
      '--html [file]',
      '--no-color',
    ])
      expect(io.out()).toContain(flag);
  });
});
