import { expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { bufferIO } from '../../src/report/io.js';
import { describeRedis, useRedisServer } from '../support/describe-redis.js';

describeRedis("ratelab fidelity --redis (a Lua script's added latency, reported)", () => {
  const fixture = useRedisServer();

  it('reports the added latency without judging it', async () => {
    const io = bufferIO();
    const code = await run(['fidelity', '--only', 'redis', '--redis', fixture.server.url, '--json', '-'], io);
    expect(io.err()).toBe('');
    expect(code).toBe(0);
    const [redis] = JSON.parse(io.out()).cases as {
      id: string;
      verdict: string;
      reproduced: unknown;
      details: { addedMs: number; redisMeanMs: number };
    }[];
    expect(redis).toMatchObject({ id: 'redis/lua-latency', verdict: 'reported', reproduced: null });
    expect(redis?.details.redisMeanMs).toBeGreaterThan(0);
    expect(Number.isFinite(redis?.details.addedMs)).toBe(true);
  }, 60_000);

  it('exits 3 when nothing answers at the URL', async () => {
    const io = bufferIO();
    const port = fixture.server.port;
    await fixture.server.stop();
    expect(await run(['fidelity', '--only', 'redis', '--redis', `redis://127.0.0.1:${port}`], io)).toBe(3);
    expect(io.err()).toMatch(/cannot reach Redis/);
  }, 60_000);
});
