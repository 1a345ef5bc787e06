import { describe, expect, it } from 'vitest';
import type { AuditReport } from '../../src/audit/audit-report.js';
import { auditJson } from '../../src/report/data/audit-json.js';
import { SAMPLE_REPORT } from './sample-report.js';

/** The same object with its keys, at every depth, in reverse order. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([key, inner]) => [key, reversed(inner)]),
  );
}

describe('auditJson writes the AuditReport as it is (format 1)', () => {
  const json = auditJson(SAMPLE_REPORT);

  it('round-trips to the same report', () => {
    expect(JSON.parse(json)).toEqual(SAMPLE_REPORT);
  });

  it("writes the keys in the type's order, whatever order the report was built in", () => {
    expect(auditJson(reversed(SAMPLE_REPORT) as AuditReport)).toBe(json);
    expect(Object.keys(JSON.parse(json))).toEqual([
      'format',
      'target',
      'paths',
      'algorithm',
      'policy',
      'deniedCount',
      'alignment',
      'scope',
      'denial',
      'headers',
      'concurrency',
      'weaker',
      'findings',
      'timelines',
      'requests',
      'durationMs',
      'stoppedBy',
    ]);
  });

  it('leaves out the optional fields a report does not have, and keeps a null concurrency', () => {
    const { deniedCount: _denied, ...withoutDenied } = SAMPLE_REPORT;
    const parsed = JSON.parse(auditJson({ ...withoutDenied, concurrency: null }));
    expect(parsed).not.toHaveProperty('deniedCount');
    expect(parsed).not.toHaveProperty('edge');
    expect(parsed.concurrency).toBeNull();
  });

  it('writes the optional sections when present', () => {
    const parsed = JSON.parse(
      auditJson({
        ...SAMPLE_REPORT,
        edge: { worstWindowRatio: 1.95, before: 20, after: 19, spanMs: 1000 },
        soak: {
          durationMs: 30_000,
          requests: 900,
          admitted: 600,
          oracleAdmitted: 600,
          falseAdmits: 0,
          falseDenials: 0,
          worstWindowRatio: 1,
        },
        expect: { claim: 'token-bucket 20/1s burst 40', passed: true, mismatches: [] },
      }),
    );
    expect(parsed.edge.worstWindowRatio).toBe(1.95);
    expect(parsed.soak.oracleAdmitted).toBe(600);
    expect(parsed.expect).toEqual({ claim: 'token-bucket 20/1s burst 40', passed: true, mismatches: [] });
  });
});
