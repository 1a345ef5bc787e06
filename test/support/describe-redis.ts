import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { redisAvailable, startRedisServer, type RedisServer } from './redis-server.js';

/** What {@link useRedisServer} provides, set before the first test runs. */
export interface RedisFixture {
  readonly server: RedisServer;
  /** An ioredis client with default options, connected to `server`. */
  readonly redis: Redis;
}

/**
 * Inside a describe block: starts one redis-server and a client before its tests and stops
 * both after them. Read the fields inside tests (they are set in beforeAll).
 */
export function useRedisServer(): RedisFixture {
  const fixture = {} as { server: RedisServer; redis: Redis };
  beforeAll(async () => {
    fixture.server = await startRedisServer();
    fixture.redis = new Redis(fixture.server.url);
  });
  afterAll(async () => {
    fixture.redis?.disconnect();
    await fixture.server?.stop();
  });
  return fixture;
}

/**
 * A redis-server of its own for `body`, with an admin client that tolerates the server
 * failing (no retries, errors swallowed): for tests that make Redis fail under a command
 * (CLIENT PAUSE, SHUTDOWN, maxmemory). Both are stopped afterwards.
 */
export async function withFailingRedis(body: (server: RedisServer, admin: Redis) => Promise<void>): Promise<void> {
  const server = await startRedisServer();
  const admin = new Redis(server.url, { maxRetriesPerRequest: 0 });
  admin.on('error', () => undefined);
  try {
    await body(server, admin);
  } finally {
    admin.disconnect();
    await server.stop();
  }
}

/** `describe`, when redis-server exists; otherwise skipped with a notice, or failing under RATELAB_REQUIRE_REDIS=1. */
export function describeRedis(name: string, body: () => void): void {
  if (redisAvailable) {
    describe(name, body);
    return;
  }
  if (process.env.RATELAB_REQUIRE_REDIS === '1') {
    describe(name, () => {
      it('needs redis-server on PATH (RATELAB_REQUIRE_REDIS=1)', () => {
        throw new Error('redis-server is not on PATH, and RATELAB_REQUIRE_REDIS=1 forbids skipping');
      });
    });
    return;
  }
  process.stderr.write(
    `\n[ratelab] SKIPPED "${name}": redis-server is not on PATH (install it, or set RATELAB_REQUIRE_REDIS=1 to fail instead)\n`,
  );
  describe.skip(name, body);
}
