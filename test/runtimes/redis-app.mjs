// The Redis application the Bun and Deno rows of test/runtimes/redis-runtimes.test.ts
// serve: ratelab/redis's createRedisLimiter over that runtime's own npm clients (ioredis,
// and node-redis v5 `createClient`), connected to the test's redis-server, the server's
// clock deciding (no virtual clock). Per client NAME (`ioredis`, `node-redis`):
// - POST /checks/NAME answers what that client's limiters decided: CONCURRENT consumes at
//   once on one key under LIMIT per day, for each algorithm; and the two-limit COMPOSITE
//   (warmed up on another key): LIMIT consumes at once, then one more, with the script
//   calls Redis counted (INFO commandstats) around each. The test judges the answers.
// - GET /limited/NAME: rateLimitFetch over a Redis limiter on that client (SMOKE: 3 per
//   minute, sliding log), keyed by the peer address the runtime gives.
// Runtime-neutral: the runtime's main module imports the bundles and the clients.

/** The concurrent check: this many consumes at once on one key, LIMIT of them admissible. */
export const CONCURRENT = 12;
export const LIMIT = 5;
/** The concurrent check's policy: a day, so no window or refill moves during the check. */
const DAY_POLICY = { limit: LIMIT, windowMs: 86_400_000 };
/** Two limits decided in one script call: 5 a second (sliding log), 20 an hour (sliding counter). */
export const COMPOSITE = [
  { name: 'second', limit: LIMIT, windowMs: 1000 },
  { name: 'hour', limit: 20, windowMs: 3_600_000, algorithm: 'sliding-counter' },
];
/** The server smoke's policy. */
export const SMOKE_POLICY = { limit: 3, windowMs: 60_000 };
/**
 * Every limiter fails closed and waits up to 2 s: a slow answer on a loaded machine is a
 * visible `fail-closed` denial (the test wants `reason: 'redis'`), never an admission.
 */
const BOUNDED = { failMode: 'closed', timeoutMs: 2000 };

/**
 * `clients`: [{ name, version, client }] (connected). Returns the Fetch handler
 * `(request, ...rest) => Promise<Response>`, rest being what the runtime passes.
 */
export function createRedisApp(ratelab, fetchEntry, redisEntry, clients) {
  const routes = new Map();
  for (const { name, version, client } of clients) {
    const limiter = redisEntry.createRedisLimiter('sliding-log', SMOKE_POLICY, {
      redis: client,
      prefix: `smoke:${name}:`,
      ...BOUNDED,
    });
    const limited = fetchEntry.rateLimitFetch(() => new Response('ok', { headers: { 'content-type': 'text/plain' } }), {
      limiter,
      headers: { ietf: { policyName: 'smoke' } },
    });
    routes.set(name, { version, client, limited });
  }
  return async (request, ...rest) => {
    const [, route, name] = new URL(request.url).pathname.split('/');
    const entry = routes.get(name);
    if (entry === undefined) return new Response(`no client ${name}`, { status: 404 });
    if (route === 'checks' && request.method === 'POST') {
      return Response.json({ version: entry.version, ...(await check(ratelab, redisEntry, name, entry.client)) });
    }
    if (route === 'limited') return entry.limited(request, ...rest);
    return new Response('not found', { status: 404 });
  };
}

/** The decisions' fields the test reads. */
const seen = ({ allowed, remaining, retryAfterMs, reason, limits }) => ({
  allowed,
  remaining,
  retryAfterMs,
  reason,
  ...(limits === undefined
    ? {}
    : { limits: limits.map(({ name, allowed: ok, remaining: left }) => ({ name, allowed: ok, remaining: left })) }),
});

async function check(ratelab, redisEntry, name, client) {
  const concurrent = {};
  for (const algorithm of ratelab.ALGORITHMS) {
    const limiter = redisEntry.createRedisLimiter(algorithm, DAY_POLICY, {
      redis: client,
      prefix: `checks:${name}:`,
      ...BOUNDED,
    });
    const decisions = await Promise.all(Array.from({ length: CONCURRENT }, () => limiter.consume('one')));
    concurrent[algorithm] = decisions.map(seen);
  }
  const composite = redisEntry.createRedisLimiter('sliding-log', COMPOSITE, {
    redis: client,
    prefix: `composite:${name}:`,
    ...BOUNDED,
  });
  await composite.consume('warm-up'); // the first call loads the script (NOSCRIPT, then EVAL)
  const before = await scriptCalls(client);
  const admitted = await Promise.all(Array.from({ length: LIMIT }, () => composite.consume('k')));
  const between = await scriptCalls(client);
  const denied = await composite.consume('k');
  const after = await scriptCalls(client);
  return {
    concurrent,
    composite: { admitted: admitted.map(seen), denied: seen(denied), calls: [between - before, after - between] },
  };
}

/** EVALSHA and EVAL calls Redis has counted so far. */
async function scriptCalls(client) {
  const stats = await client.info('commandstats');
  const calls = (command) => Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
  return calls('evalsha') + calls('eval');
}
