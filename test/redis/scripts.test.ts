import { describe, expect, it } from 'vitest';
import type { Algorithm } from '../../src/core/policy.js';
import { compositeScript, helpersUsedBy, limiterScript, readLua } from '../../src/redis/scripts.js';

// Redis creates every helper a script carries as a closure on each call, so a script
// carries only those its algorithm calls; one it calls but lacks would fail every key.
const HELPERS = [
  'encode',
  'ttl',
  'read_pair',
  'write_pair',
  'expire_after',
  'read_fields',
  'write_fields',
  'floor_div',
  'window_at',
  'NEVER',
];
const defined = (source: string) =>
  HELPERS.filter((name) => new RegExp(`^local (function )?${name}\\b`, 'm').test(source));
const limits = { limit: 10, windowMs: 1000, capacity: 10 };

describe('decision scripts carry the helpers their algorithm uses, and no others', () => {
  it.each([
    ['token-bucket', ['ttl', 'read_pair', 'write_pair', 'floor_div', 'NEVER']],
    ['gcra', ['ttl', 'read_pair', 'write_pair', 'floor_div', 'NEVER']],
    ['fixed-window', ['encode', 'ttl', 'expire_after', 'read_fields', 'write_fields', 'window_at', 'NEVER']],
    [
      'sliding-counter',
      ['encode', 'ttl', 'expire_after', 'read_fields', 'write_fields', 'floor_div', 'window_at', 'NEVER'],
    ],
    ['sliding-log', ['encode', 'ttl', 'expire_after', 'NEVER']],
  ] as [Algorithm, string[]][])('%s: %j', (algorithm, expected) => {
    for (const tail of ['batch', 'single'] as const) {
      expect(defined(limiterScript(algorithm, limits, 0, false, tail).source)).toEqual(expected);
    }
  });

  it('keeps a helper that only another kept helper calls, and the head every script needs', () => {
    const common = readLua('common');
    const kept = helpersUsedBy(common, 'local q = write_pair(1, 2, nil, 3)');
    expect(defined(kept)).toEqual(['ttl', 'write_pair']);
    expect(kept).toContain('local key, cost, now');
    expect(helpersUsedBy(common, 'return 1')).not.toMatch(/^local function/m);
  });

  it('a composite of buckets and windows only inlines its bodies over one packed value: no state helper, no call per limit', () => {
    const list = [
      { name: 'a', algorithm: 'token-bucket', ...limits },
      { name: 'b', algorithm: 'fixed-window', ...limits },
    ] as const;
    const source = compositeScript(list, 0).source;
    // why: the bucket replies its units in use, so no floor_div: the client works out its remaining
    expect(defined(source)).toEqual(['ttl', 'window_at', 'NEVER']);
    expect(source).toContain('struct.unpack(layout, stored)');
    expect(source).not.toMatch(/HMGET|HSET|PEXPIRE|decide_token_bucket|decide_fixed_window|read_pair|write_fields/);
  });

  it("a composite with a sliding log keeps its other limits in one packed value through packed.lua's state helpers", () => {
    const list = [
      { name: 'a', algorithm: 'token-bucket', ...limits },
      { name: 'b', algorithm: 'fixed-window', ...limits },
      { name: 'c', algorithm: 'sliding-log', ...limits },
    ] as const;
    const source = compositeScript(list, 0).source;
    // why: every helper, in common.lua's order.
    expect(defined(source)).toEqual(HELPERS);
    expect(source).toContain("struct.unpack('dd', state, 8 * slot + 1)");
    expect(source).not.toMatch(/HMGET|HSET/);
  });
});
