// `ratelab audit --expect` end to end: the real engine against `ratelab serve` (a child
// process: `npm run build` first), the claim judged and the exit code the CI gate sees.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditCommand } from '../../src/cli/commands/audit.js';
import { bufferIO } from '../../src/report/io.js';
import type { Fixture } from './fixtures/child-server.js';
import { startRatelabServe } from './fixtures/ratelab-serve.js';

let fixture: Fixture;

beforeAll(async () => {
  fixture = await startRatelabServe({ algorithm: 'gcra', limit: 20, window: '1s', burst: 40, trustApiKeys: true });
});
afterAll(() => fixture.stop());

async function auditWith(expectClaim: string) {
  const io = bufferIO();
  const code = await auditCommand(
    { url: fixture.url, keyHeader: 'X-API-Key', expect: expectClaim, maxTime: '30s', json: '-' },
    io,
  );
  return { code, report: JSON.parse(io.out()) as { expect: { passed: boolean; mismatches: string[] } }, err: io.err() };
}

describe('ratelab audit --expect, against a live limiter', () => {
  it.each([
    ['token-bucket 20/1s burst 40 per header X-API-Key', 'the claim as configured (GCRA is the token bucket family)'],
    ['gcra 20/1s burst 40', 'the family by its other name, no scope claimed'],
  ])('%s: exit 0 (%s)', { timeout: 60_000 }, async (claim) => {
    const { code, report } = await auditWith(claim);
    expect(report.expect).toMatchObject({ passed: true, mismatches: [] });
    expect(code).toBe(0);
  });

  it.each([
    ['token-bucket 50/1s burst 40', /^rate: expected 50 per 1s, measured 20/, 'a wrong rate'],
    ['fixed-window 20/1s', /^family: expected fixed-window, measured token-bucket/, 'a wrong family'],
    [
      'token-bucket 20/1s burst 40 per address',
      /^scope: expected per address, measured per header X-API-Key/,
      'a wrong scope',
    ],
  ])('%s: exit 1 naming the mismatch (%s)', { timeout: 60_000 }, async (claim, mismatch) => {
    const { code, report, err } = await auditWith(claim);
    expect(report.expect.passed).toBe(false);
    expect(report.expect.mismatches[0]).toMatch(mismatch);
    expect(err).toMatch(mismatch.source.replace('^', ''));
    expect(code).toBe(1);
  });
});
