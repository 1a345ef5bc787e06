// Deno with Redis: the Redis app (redis-app.mjs) over ioredis and node-redis, through
// Deno's npm compatibility (bare specifiers from the repository's node_modules, the
// package.json found: --node-modules-dir=manual), on Deno.serve on a free loopback port.
// Argument: the Redis URL. Prints { port, runtime, version }.
/* global Deno */
import { Redis } from 'ioredis';
import ioredisPackage from 'ioredis/package.json' with { type: 'json' };
import { createClient } from 'redis';
import redisPackage from 'redis/package.json' with { type: 'json' };
import * as ratelab from '../../dist/lib/index.js';
import * as fetchEntry from '../../dist/lib/fetch.js';
import * as redisEntry from '../../dist/lib/redis.js';
import { createRedisApp } from './redis-app.mjs';
import { connectClients } from './redis-clients.mjs';

const clients = await connectClients(Deno.args[0], { Redis, createClient, ioredisPackage, redisPackage });
Deno.serve(
  {
    hostname: '127.0.0.1',
    port: 0,
    onListen: ({ port }) => console.log(JSON.stringify({ port, runtime: 'deno', version: Deno.version.deno })),
  },
  createRedisApp(ratelab, fetchEntry, redisEntry, clients),
);
