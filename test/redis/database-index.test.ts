import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { RatelabError } from '../../src/core/errors.js';
import { bufferIO } from '../../src/report/io.js';
import { connectRedis } from '../../src/redis/client.js';
import { describeRedis } from '../support/describe-redis.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

// The database of a redis:// URL's path is where the keys go, or the URL is refused: a
// server started with `--databases 4` has 0-3, so /99 must never fall back to database 0.
describeRedis('the database of a Redis URL (redis://host:port/N)', () => {
  let server: RedisServer;
  let admin: Redis;

  beforeAll(async () => {
    server = await startRedisServer(['--databases', '4']);
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    admin?.disconnect();
    await server?.stop();
  });

  it('connectRedis writes to the database the path names', async () => {
    const redis = await connectRedis(`${server.url}/3`);
    await redis.eval("return redis.call('SET', KEYS[1], 'here')", 1, 'db-index:probe');
    redis.disconnect();
    expect(await admin.get('db-index:probe')).toBeNull();
    await admin.select(3);
    expect(await admin.get('db-index:probe')).toBe('here');
    await admin.select(0);
  });

  it('connectRedis refuses a database the server does not have, with INVALID_ARGUMENT naming it', async () => {
    const refused = await connectRedis(`${server.url}/99`).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(RatelabError);
    expect(refused).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'redis' });
    expect((refused as Error).message).toMatch(
      /^--redis: database 99 is not available on 127\.0\.0\.1:\d+: ERR DB index is out of range$/,
    );
  });

  it.each(['/x', '/1.5', '/-1', '/0/1'])(
    'a path that is not a database index (%s) is refused before connecting',
    async (path) => {
      const refused = await connectRedis(`${server.url}${path}`).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'redis' });
      expect((refused as Error).message).toContain("the database (the URL's path) must be a whole number");
    },
  );

  it.each([
    ['race', ['race', '--limit', '10']],
    ['bench --redis', ['bench', '--quick']],
    ['fidelity --redis', ['fidelity', '--only', 'redis']],
  ])('ratelab %s with /99 exits 2 with one line and writes nothing to database 0', async (_label, args) => {
    const before = await admin.dbsize();
    const io = bufferIO();
    const code = await run([...args, '--redis', `${server.url}/99`], io);
    expect(io.err()).toMatch(
      /^ratelab: --redis: database 99 is not available on 127\.0\.0\.1:\d+: ERR DB index is out of range\n$/,
    );
    expect(code).toBe(2);
    expect(await admin.dbsize()).toBe(before);
  });
});
