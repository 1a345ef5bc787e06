// docs/redis.md's first example, run as a newcomer would run it (the built package, by its
// name; needs `npm run build`) against a redis-server of its own: its first call is decided
// by Redis, not by the fail mode of a client still connecting.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { describeRedis, useRedisServer } from '../support/describe-redis.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const doc = readFileSync(new URL('../../docs/redis.md', import.meta.url), 'utf8');
const example = /```ts\n([\s\S]*?)\n```/.exec(doc)?.[1] ?? '';

describeRedis("docs/redis.md's first example", () => {
  const fixture = useRedisServer();

  it('decides its first call in Redis (reason "redis")', async () => {
    expect(example).toContain("new Redis('redis://127.0.0.1:6380'");
    // `id` and `cost` are the caller's; the doc's address is its placeholder for a server.
    const script = [
      'const id = 42, cost = 1;',
      example.replace('redis://127.0.0.1:6380', fixture.server.url),
      'console.log(JSON.stringify(decision));',
      'redis.disconnect();',
    ].join('\n');
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(JSON.parse(stdout)).toMatchObject({ allowed: true, reason: 'redis', limit: 20, remaining: 19 });
  });
});
