// Bun with Redis: the Redis app (redis-app.mjs) over ioredis and node-redis, as Bun loads
// them from node_modules, on Bun.serve on a free loopback port. Argument: the Redis URL.
// Prints { port, runtime, version }.
/* global Bun */
import { Redis } from 'ioredis';
import ioredisPackage from 'ioredis/package.json' with { type: 'json' };
import { createClient } from 'redis';
import redisPackage from 'redis/package.json' with { type: 'json' };
import * as ratelab from '../../dist/lib/index.js';
import * as fetchEntry from '../../dist/lib/fetch.js';
import * as redisEntry from '../../dist/lib/redis.js';
import { createRedisApp } from './redis-app.mjs';
import { connectClients } from './redis-clients.mjs';

const clients = await connectClients(Bun.argv[2], { Redis, createClient, ioredisPackage, redisPackage });
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  fetch: createRedisApp(ratelab, fetchEntry, redisEntry, clients),
});
console.log(JSON.stringify({ port: server.port, runtime: 'bun', version: Bun.version }));
