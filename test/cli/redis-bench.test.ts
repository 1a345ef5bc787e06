import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { bufferIO } from '../../src/report/io.js';
import { describeRedis, withFailingRedis } from '../support/describe-redis.js';
import { freePort, startRedisServer, type RedisServer } from '../support/redis-server.js';

describeRedis('ratelab bench --redis URL', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('prints every contender at both in-flight levels within 80 columns, writes JSON, and leaves no key behind', async () => {
    const io = bufferIO();
    expect(await run(['bench', '--redis', server.url, '--quick', '--rounds', '1', '--json', '-'], io)).toBe(0);
    const report = io.err();
    for (const level of ['50 in flight', '500 in flight']) expect(report).toContain(level);
    expect(report.match(/^(ratelab batched|ratelab per call|ratelab 2 limits|RLF) +[\d,]+ +\d+\.\d\d/gm)).toHaveLength(
      8,
    );
    for (const line of report.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    const bars = report.slice(report.indexOf('calls/s x RLF (longer is faster)'));
    expect(
      bars.match(/^ {2}(ratelab batched|ratelab per call|ratelab 2 limits|RLF) +[█-▏]+ \d+\.\d\dx$/gm),
    ).toHaveLength(8);
    // Two limits against one, batched, in the same rounds.
    expect(report).toMatch(/^note: 2 limits \/ batched calls\/s: \d+\.\d\dx at 50, \d+\.\d\dx at 500 in flight$/m);
    const json = JSON.parse(io.out()) as {
      levels: { inFlight: number; contenders: { name: string; callsPerSec: number[] }[] }[];
      medians: { inFlight: number; contender: string; callsPerSec: number; xRlf: number }[];
    };
    // Every bar's figure is in the JSON: x RLF per level and contender, 1 for RLF itself.
    expect(json.medians).toHaveLength(8);
    for (const m of json.medians.filter((m) => m.contender.startsWith('rate-limiter'))) expect(m.xRlf).toBe(1);
    for (const m of json.medians) expect(bars).toContain(`${m.xRlf.toFixed(2)}x`);
    expect(json.levels.map((l) => l.inFlight)).toEqual([50, 500]);
    expect(json.levels[0]!.contenders.map((c) => c.name)).toEqual([
      'ratelab token bucket, batched',
      'ratelab token bucket, per call',
      'ratelab token bucket, 2 limits',
      'rate-limiter-flexible RateLimiterRedis',
    ]);
    expect(json.levels[0]!.contenders.every((c) => c.callsPerSec.length === 1 && c.callsPerSec[0]! > 0)).toBe(true);
    const { Redis } = await import('ioredis');
    const redis = new Redis(server.url);
    expect(await redis.dbsize()).toBe(0);
    redis.disconnect();
  }, 60_000);

  it('a Redis that is not there: one line naming it, exit 3', async () => {
    const io = bufferIO();
    const url = `redis://127.0.0.1:${await freePort()}`;
    expect(await run(['bench', '--redis', url, '--quick'], io)).toBe(3);
    const lines = io.err().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(url.replace('redis://', ''));
    expect(io.err()).not.toMatch(/\n\s+at /);
  });

  it('a non-loopback host is refused without --allow-remote', async () => {
    const io = bufferIO();
    expect(await run(['bench', '--redis', 'redis://192.0.2.1:6379', '--quick'], io)).toBe(2);
    expect(io.err()).toMatch(/--allow-remote/);
  });
});

describeRedis('ratelab bench --redis when Redis fails mid-run', () => {
  type Failure = { what: string; fail: (admin: Redis) => Promise<unknown>; message: RegExp; comesBack: boolean };
  // Each failure begins once the bench's keys exist, so the run is under way; --rounds 100
  // would take minutes if the failure were not noticed.
  it.each<Failure>([
    {
      what: 'CLIENT PAUSE 3000 (hangs past the command timeout)',
      fail: (admin) => admin.call('CLIENT', 'PAUSE', '3000'),
      message: /timed out/i,
      comesBack: true,
    },
    {
      what: 'CLIENT PAUSE 3000 WRITE',
      fail: (admin) => admin.call('CLIENT', 'PAUSE', '3000', 'WRITE'),
      message: /timed out/i,
      comesBack: true,
    },
    {
      what: 'SHUTDOWN',
      fail: (admin) => admin.call('SHUTDOWN', 'NOSAVE'),
      message: /.+; could not delete the bench's keys ratelab-bench:[0-9a-f-]+:\* from Redis/,
      comesBack: false,
    },
    {
      what: 'maxmemory reached',
      fail: async (admin) => {
        const used = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))?.[1]);
        await admin.config('SET', 'maxmemory-policy', 'noeviction');
        await admin.config('SET', 'maxmemory', String(used));
      },
      message: /OOM command not allowed/,
      comesBack: true,
    },
  ])(
    '$what: exit 3, one line with the Redis error, no internal error, the keys deleted when Redis is back',
    async ({ fail, message, comesBack }) => {
      await withFailingRedis(async (server, admin) => {
        const io = bufferIO();
        const exit = run(['bench', '--redis', server.url, '--quick', '--rounds', '100'], io);
        while ((await admin.dbsize()) < 100) await new Promise((resolve) => setTimeout(resolve, 10));
        await fail(admin).catch(() => undefined);
        expect(await exit).toBe(3);
        const lines = io.err().trim().split('\n');
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(/^ratelab: Redis failed during bench --redis \(.+\): /);
        expect(lines[0]).toMatch(message);
        expect(io.err()).not.toMatch(/internal error|unexpected decision|\n\s+at /);
        expect(io.out()).toBe('');
        if (comesBack) {
          await admin.config('SET', 'maxmemory', '0');
          expect(await admin.dbsize()).toBe(0);
        }
      });
    },
    60_000,
  );
});
