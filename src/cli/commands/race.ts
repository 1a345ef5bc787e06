import { randomUUID } from 'node:crypto';
import { RatelabError } from '../../errors.js';
import { checkAlgorithm } from '../../policy.js';
import { openRedis } from '../../redis/client.js';
import { race, type Contender } from '../../race/race.js';
import { EXIT } from '../exit-codes.js';
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

/**
 * `ratelab race --redis URL`: the naive GET-then-SET limiter against ratelab's Lua script
 * on a real Redis, from several connections with many calls in flight on one key. Prints
 * how many each admitted over the limit. Exit 1 if the Lua script over-admitted, 3 if
 * Redis cannot be reached, 2 for bad flags or a non-loopback host without --allow-remote.
 */
export const raceCommand: Command<RaceOptions> = async (options, io) => {
  const algorithm = checkAlgorithm(options.algorithm ?? 'token-bucket', '--algorithm');
  const limit = count(options.limit, '--limit', 1000);
  const connections = count(options.connections, '--connections', 4);
  const inFlight = count(options.inFlight, '--in-flight', 50);
  const requests = count(options.requests, '--requests', 2 * limit);
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

function count(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) {
    throw new RatelabError('INVALID_ARGUMENT', `${flag}: expected a whole number >= 1, got ${JSON.stringify(value)}`, { field: flag });
  }
  return n;
}
