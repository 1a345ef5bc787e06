import { afterAll, beforeAll, expect, it } from 'vitest';
import { bufferIO } from '../../src/report/io.js';
import { run } from '../../src/cli/main.js';
import { describeRedis, withFailingRedis } from '../support/describe-redis.js';
import { timersLeftBy } from '../support/live-timers.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

describeRedis('ratelab race --redis URL', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('prints how many each limiter admitted over the limit: the naive one some, the Lua script none', async () => {
    const io = bufferIO();
    expect(await run(['race', '--redis', server.url, '--limit', '300', '--algorithm', 'sliding-log'], io)).toBe(0);
    const lines = io.out().trim().split('\n');
    expect(lines).toHaveLength(2);
    const [naive, lua] = lines.map((line) =>
      /admitted (\d+), (\d+) over the limit/.exec(line)!.slice(1).map(Number),
    ) as [number[], number[]];
    expect(lines[0]).toMatch(/^naive GET-then-SET/);
    expect(naive[1]).toBeGreaterThan(0);
    expect(naive[1]).toBe(naive[0]! - 300);
    expect(lines[1]).toMatch(/^ratelab Lua \(sliding-log\)/);
    expect(lua).toEqual([300, 0]);
    expect(io.err()).toContain('racing 600 requests on one key, limit 300: 4 connections x 50 in flight');
  });

  it('holds no timer once it returned, so the process exits as soon as it printed', async () => {
    let code: number | undefined;
    const left = await timersLeftBy(async () => {
      code = await run(['race', '--redis', server.url, '--limit', '50'], bufferIO());
    });
    expect(code).toBe(0);
    expect(left).toBe(0);
  });

  it('leaves nothing behind in Redis', async () => {
    const { Redis } = await import('ioredis');
    const redis = new Redis(server.url);
    expect(await redis.keys('ratelab:race:*')).toEqual([]);
    redis.disconnect();
  });

  it('exits 3 with one line when nothing answers', async () => {
    const io = bufferIO();
    const port = server.port;
    await server.kill();
    expect(await run(['race', '--redis', `redis://127.0.0.1:${port}`], io)).toBe(3);
    expect(io.err()).toMatch(/^ratelab: cannot reach Redis at 127\.0\.0\.1:\d+: .*\n$/);
    await server.restart();
  });
});

describeRedis('ratelab race when Redis fails mid-race', () => {
  // Each case begins once the naive contender's key exists, so the race is under way.
  it.each([
    [
      'hangs for longer than a command may take',
      'CLIENT PAUSE 2500 ALL',
      /^ratelab: Redis failed during the race \(naive GET-then-SET\): .*timed out.*\n$/i,
    ],
    ['shuts down', 'SHUTDOWN NOSAVE', /^ratelab: Redis failed during the race \(naive GET-then-SET\): .+\n$/],
  ])('Redis %s: exit 3 with the reason in one line, and nothing left behind', async (_what, command, message) => {
    await withFailingRedis(async (server, admin) => {
      const io = bufferIO();
      const exit = run(['race', '--redis', server.url, '--limit', '1000', '--requests', '10000000'], io);
      while ((await admin.keys('ratelab:race:*naive*')).length === 0)
        await new Promise((resolve) => setTimeout(resolve, 10));
      await admin.call(...(command.split(' ') as [string, ...string[]])).catch(() => undefined);
      expect(await exit).toBe(3);
      expect(io.err()).toMatch(/^racing /);
      expect(io.err().split('\n').slice(1).join('\n')).toMatch(message);
      expect(io.out()).toBe('');
      if (command.startsWith('CLIENT PAUSE')) expect(await admin.keys('ratelab:race:*')).toEqual([]);
    });
  });
});

it.each([
  [['race', '--redis', 'redis://10.1.2.3:6379'], /10\.1\.2\.3 is not a loopback address; pass --allow-remote/],
  [['race', '--redis', 'http://127.0.0.1:1'], /expected a redis:\/\/, rediss:\/\/ or redis\+sentinel:\/\/ URL/],
  [['race', '--redis', 'redis://127.0.0.1:1', '--limit', '0'], /--limit: expected a whole number >= 1, got "0"/],
  [['race', '--redis', 'redis://127.0.0.1:1', '--algorithm', 'leaky'], /--algorithm: expected one of/],
])('ratelab %j refuses with one line and exit 2, before connecting', async (argv, message) => {
  const io = bufferIO();
  expect(await run(argv, io)).toBe(2);
  expect(io.err()).toMatch(message);
  expect(io.err().trim().split('\n')).toHaveLength(1);
});
