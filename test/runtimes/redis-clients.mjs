// The two Redis clients of the Redis rows (redis-app.mjs), connected to `url`: ioredis and
// node-redis v5, each as its own documentation makes one, and both waited for (PING).
// Runtime-neutral: the main module imports the packages and passes them in.

/** Resolves [{ name, version, client }]: ioredis first, then node-redis. */
export async function connectClients(url, { Redis, createClient, ioredisPackage, redisPackage }) {
  if (typeof url !== 'string' || !url.startsWith('redis://127.0.0.1:')) {
    throw new Error(`redis url: expected redis://127.0.0.1:PORT as the first argument, got ${String(url)}`);
  }
  const ioredis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await ioredis.connect();
  await ioredis.ping();
  const nodeRedis = createClient({ url });
  nodeRedis.on('error', (error) => console.error(`node-redis: ${error.message}`));
  await nodeRedis.connect();
  await nodeRedis.ping();
  return [
    { name: 'ioredis', version: ioredisPackage.version, client: ioredis },
    { name: 'node-redis', version: redisPackage.version, client: nodeRedis },
  ];
}
