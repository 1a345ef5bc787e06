import { randomUUID } from 'node:crypto';
import { checkAlgorithm } from '../../core/names.js';
import { openRedis } from '../../redis/client.js';
import { RatelabError } from '../../core/errors.js';
import { contenderName, race, type Contender } from '../../race/race.js';
import { deleteKeysUnder } from '../../redis/delete-keys.js';
import { EXIT } from '../exit-codes.js';
import { wholeNumberFlag } from '../flags.js';
import type { RedisTargetFlags } from '../flag-groups.js';
import type { Command } from '../../report/io.js';

/** Options of `ratelab race`. */
export interface RaceOptions extends RedisTargetFlags {
  /** The Redis to race on. */
  redis: string;
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
 * Redis cannot be reached or fails mid-race, 2 for bad flags or a non-loopback host without
 * --allow-remote. Whatever happens, the keys the race wrote are deleted (or named, if Redis
 * never came back to delete them).
 */
export const raceCommand: Command<RaceOptions> = async (options, io) => {
  const algorithm = checkAlgorithm(options.algorithm ?? 'token-bucket', '--algorithm');
  const limit = wholeNumberFlag(options.limit ?? RACE_DEFAULTS.limit, '--limit', 1);
  const connections = wholeNumberFlag(options.connections ?? RACE_DEFAULTS.connections, '--connections', 1);
  const inFlight = wholeNumberFlag(options.inFlight ?? RACE_DEFAULTS.inFlight, '--in-flight', 1);
  const requests = wholeNumberFlag(options.requests ?? 2 * limit, '--requests', 1);
  const clients = await connectAll(options.redis, connections, options.allowRemote ?? false);
  const run = `ratelab:race:${randomUUID()}:`;
  let failure: unknown;
  try {
    io.stderr.write(
      `racing ${requests} requests on one key, limit ${limit}: ${connections} connections x ${inFlight} in flight\n`,
    );
    const results: Array<[string, number]> = [];
    for (const contender of ['naive', algorithm] as Contender[]) {
      const prefix = `${run}${contender}:`;
      const share = (i: number) => Math.floor(requests / connections) + (i < requests % connections ? 1 : 0);
      const stop = { failed: false };
      const admitted = await Promise.all(
        clients.map((redis, i) =>
          race(redis, contender, { key: 'one-key', limit, requests: share(i), inFlight, prefix, stop }),
        ),
      );
      results.push([contenderName(contender), admitted.reduce((a, b) => a + b, 0)]);
    }
    const width = Math.max(...results.map(([name]) => name.length));
    for (const [name, admitted] of results) {
      io.stdout.write(`${name.padEnd(width)}  admitted ${admitted}, ${Math.max(0, admitted - limit)} over the limit\n`);
    }
    return (results[1]?.[1] ?? 0) > limit ? EXIT.CHECK_FAILED : EXIT.OK;
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    const cleaned = await deleteKeysUnder(clients[0] as Awaited<ReturnType<typeof openRedis>>, run);
    for (const client of clients) client.disconnect();
    // eslint-disable-next-line no-unsafe-finally -- on purpose: keys left behind in Redis fail the run, whatever it returned; leftBehind names its own failure too
    if (!cleaned) throw leftBehind(run, failure);
  }
};

/** The error when the race's keys could not be deleted: the run's own failure, naming them. */
function leftBehind(run: string, failure: unknown): RatelabError {
  const what = `could not delete this race's keys ${run}* from Redis`;
  if (failure instanceof RatelabError)
    return new RatelabError(failure.code, `${failure.message}; ${what}`, { field: 'redis', cause: failure });
  return new RatelabError('REDIS_UNAVAILABLE', what, { field: 'redis', cause: failure });
}

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
