// The server bench/fetch-middleware.mjs measures: a trivial Fetch handler on a free
// loopback port, in one of three modes:
// - bare: the handler alone;
// - bare-headers: the handler alone, its response carrying three static X-RateLimit-*
//   fields, so the client reads as many bytes as from `limited`;
// - bare-touched: the handler alone, the three fields then set on its response through
//   `response.headers`, as any middleware adding fields to a Response must;
// - limited: the handler behind rateLimitFetch (a token bucket no request exhausts, so every
//   request is admitted and gets its fields, keyed by the peer address);
// - limited-taken: the same, the handler putting the fields in its own Response's init
//   (takeRateLimitFields), so the middleware never reads the Response's headers.
// Node serves it through @hono/node-server (Node's own Request/Response), Bun through
// Bun.serve. GET /__reset starts counting, GET /__stats answers { requests, cpuUs }: the
// requests served and this process's CPU time (user + system) since the reset. Prints
// { port } once it listens; exits on SIGTERM (so that `node --cpu-prof` writes its profile).
//   node bench/fetch-server.mjs MODE     bun bench/fetch-server.mjs MODE
/* global Bun */
import { createLimiter } from '../dist/lib/index.js';
import { rateLimitFetch, takeRateLimitFields } from '../dist/lib/fetch.js';

const mode = process.argv[2];
const plain = { 'content-type': 'text/plain' };
const withFields = {
  ...plain,
  'X-RateLimit-Limit': '1000000000',
  'X-RateLimit-Remaining': '999999999',
  'X-RateLimit-Reset': '1',
};
const bucket = () => createLimiter('token-bucket', { limit: 1_000_000_000, windowMs: 1000 });
const handlers = {
  bare: () => new Response('ok', { headers: plain }),
  'bare-headers': () => new Response('ok', { headers: withFields }),
  'bare-touched': () => {
    const response = new Response('ok', { headers: plain });
    const { headers } = response;
    for (const [name, value] of Object.entries(withFields)) if (!headers.has(name)) headers.set(name, value);
    return response;
  },
  limited: rateLimitFetch(() => new Response('ok', { headers: plain }), { limiter: bucket() }),
  'limited-taken': rateLimitFetch((request) => new Response('ok', { headers: takeRateLimitFields(request, plain) }), {
    limiter: bucket(),
  }),
};
const handler = handlers[mode];
if (handler === undefined) throw new Error(`usage: fetch-server.mjs ${Object.keys(handlers).join('|')}`);

process.on('SIGTERM', () => process.exit(0));

let requests = 0;
let since = process.cpuUsage();
const fetch = (request, ...rest) => {
  const { pathname } = new URL(request.url);
  if (pathname === '/__reset') {
    requests = 0;
    since = process.cpuUsage();
    return new Response('reset');
  }
  if (pathname === '/__stats') {
    const { user, system } = process.cpuUsage(since);
    return Response.json({ requests, cpuUs: user + system });
  }
  requests += 1;
  return handler(request, ...rest);
};

if (typeof Bun === 'object') {
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch });
  console.log(JSON.stringify({ port: server.port }));
} else {
  const { serve } = await import('@hono/node-server');
  serve({ fetch, hostname: '127.0.0.1', port: 0 }, ({ port }) => console.log(JSON.stringify({ port })));
}
