import { randomUUID } from 'node:crypto';
import { checkAlgorithm } from '../../policy.js';
import { openRedis } from '../../redis/client.js';
import { race, type Contender } from '../../race/race.js';
import { EXIT } from '../exit-codes.js';
import { wholeNumberFlag } from '../flags.js';
import type { Command } from '../../io.js';

/** Options of `ratelab race`. */
export interface RaceOptions {
  redis: string;
  allowRemote?: boolean;
  algorithm?: string;
  limit?: string;
  connections?: string;
  inFlight?: string;
  requests?: string;
}

/** Defaults of `ratelab race`; `--requests` defaults to twice the limit. */
const RACE_DEFAULTS = { limit: 1000, connections: 4, inFlight: 50 };

/**
 * `ratelab race --redis URL`: the naive GET-then-SET limiter against ratelab's Lua script
 * on a real Redis, from several connections with many calls in flight on one key. Prints
 * how many each admitted over the limit. Exit 1 if the Lua script over-admitted, 3 if
 * Redis cannot be reached, 2 for bad flags or a non-loopback host without --allow-remote.
 */
export const raceCommand: Command<RaceOptions> = async (options, io) => {
  const algorithm = checkAlgorithm(options.algorithm ?? 'token-bucket', '--algorithm');
  const limit = wholeNumberFlag(options.limit ?? RACE_DEFAULTS.limit, '--limit', 1);
  const connections = wholeNumberFlag(options.connections ?? RACE_DEFAULTS.connections, '--connections', 1);
  const inFlight = wholeNumberFlag(options.inFlight ?? RACE_DEFAULTS.inFlight, '--in-flight', 1);
  const requests = wholeNumberFlag(options.requests ?? 2 * limit, '--requests', 1);
  const clients = await connectAll(options.redis, connections, options.allowRemote ?? false);
  const run = `ratelab:race:${randomUUID()}:`;
  try {
    io.stderr.write(`racing ${requests} requests on one key, limit ${limit}: ${connections} connections x ${inFlight} in flight\n`);
    const results: Array<[string, number]> = [];
    for (const contender of ['naive', algorithm] as Contender[]) {
      const prefix = `${run}${contender}:`;
      const share = (i: number) => Math.floor(requests / connections) + (i < requests % connections ? 1 : 0);
      const admitted = await Promise.all(clients.map((redis, i) => race(redis, contender, { key: 'one-key', limit, requests: share(i), inFlight, prefix })));
      results.push([contender === 'naive' ? 'naive GET-then-SET' : `ratelab Lua (${algorithm})`, admitted.reduce((a, b) => a + b, 0)]);
    }
    const width = Math.max(...results.map(([name]) => name.length));
    for (const [name, admitted] of results) {
      io.stdout.write(`${name.padEnd(width)}  admitted ${admitted}, ${Math.max(0, admitted - limit)} over the limit\n`);
    }
    return (results[1]?.[1] ?? 0) > limit ? EXIT.CHECK_FAILED : EXIT.OK;
  } finally {
    await cleanUp(clients[0], run);
    for (const client of clients) client.disconnect();
  }
};

async function connectAll(url: string, connections: number, allowRemote: boolean) {
  const clients = [];
  try {
    for (let i = 0; i < connections; i++) clients.push(await openRedis(url, { allowRemote }));
  } catch (error) {
    for (const client of clients) client.disconnect();
    throw error;
  }
  return clients;
}

/** Deletes the keys this race wrote (they would expire anyway, but not for years). */
async function cleanUp(redis: Awaited<ReturnType<typeof openRedis>> | undefined, prefix: string): Promise<void> {
  if (redis === undefined) return;
  const keys = await redis.keys(`${prefix}*`).catch(() => []);
  if (keys.length > 0) await redis.del(...keys).catch(() => 0);
}
