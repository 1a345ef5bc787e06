// docs/http.md's Durable Object example, run on workerd through Miniflare: the Worker's
// rateLimitFetch asks each client key's Durable Object, whose limiter decides every request
// of that key (Cloudflare runs one object per id, wherever the Worker's isolates run).
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
let mf: Miniflare;
let url: string;

beforeAll(async () => {
  mf = new Miniflare({
    modules: true,
    scriptPath: join(root, 'test/runtimes/durable-object.mjs'),
    modulesRoot: root,
    modulesRules: [{ type: 'ESModule', include: ['**/*.js', '**/*.mjs'] }],
    compatibilityDate: '2026-04-01',
    durableObjects: { LIMITER: 'KeyLimiter' },
    host: '127.0.0.1',
    port: 0,
  });
  url = String(await mf.ready);
}, 60_000);
afterAll(async () => {
  await mf?.dispose();
});

const get = (ip: string) => fetch(url, { headers: { 'cf-connecting-ip': ip } });

describe('a Durable Object per key: one limit for the whole Worker', () => {
  it('3 per minute per client address, decided by the address’s object; another address has its own', async () => {
    // [address, status, why]
    const rows: [string, number, string][] = [
      ['192.0.2.1', 200, 'the first of three'],
      ['192.0.2.1', 200, ''],
      ['192.0.2.1', 200, 'the third'],
      ['192.0.2.1', 429, 'the fourth: the object has counted three'],
      ['192.0.2.2', 200, 'another key, another object, a full quota'],
    ];
    for (const [ip, status, why] of rows) {
      const response = await get(ip);
      await response.arrayBuffer();
      expect(response.status, `${ip}: ${why}`).toBe(status);
      if (status === 429) expect(response.headers.get('retry-after'), why).toMatch(/^\d+$/);
    }
  });
});
