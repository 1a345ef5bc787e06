import { describe, expect, it } from 'vitest';
import { IdentityPool } from '../../src/audit/identities.js';

describe('IdentityPool: every identity a client the limiter has not seen', () => {
  it('an IPv4 loopback target: each fresh identity a new source address in 127.0.0.2-254, all 253 before any twice', () => {
    const pool = new IdentityPool('127.0.0.1', undefined, 'run');
    const addresses = Array.from({ length: 253 }, () => pool.fresh().address);
    expect(new Set(addresses).size).toBe(253);
    for (const address of addresses) expect(address).toMatch(/^127\.0\.0\.(\d+)$/);
    const hosts = addresses.map((a) => Number(a?.split('.')[3]));
    expect(Math.min(...hosts)).toBe(2);
    expect(Math.max(...hosts)).toBe(254);
    // Spent: from now on identities can differ by key alone.
    expect(pool.freshAddresses).toBe(false);
    expect(pool.fresh().address).toBeUndefined();
  });

  it('a key header: each identity a new key value of this run; the twins keep one part and renew the other', () => {
    const pool = new IdentityPool('127.0.0.1', 'X-API-Key', 'run');
    const base = pool.fresh();
    const newKey = pool.withFreshKey(base);
    const newAddress = pool.withFreshAddress(base);
    expect(base.key).toBe('ratelab-audit-run-1');
    expect(newKey).toMatchObject({ address: base.address, key: 'ratelab-audit-run-2' });
    expect(newAddress.key).toBe(base.key);
    expect(newAddress.address).not.toBe(base.address);
  });

  it('an IPv6 or remote target: no address can be bound, so only a key header can vary an identity', () => {
    expect(new IdentityPool('::1', undefined).canVary).toBe(false);
    expect(new IdentityPool('::1', 'X-API-Key').canVary).toBe(true);
    expect(new IdentityPool('::1', 'X-API-Key').fresh().address).toBeUndefined();
  });
});
