// ns of CPU per request of rateLimitFetch's own path, without HTTP: a trivial handler called
// in a loop, bare and behind the middleware, in one process, with the Response class
// @hono/node-server gives it (installed as the global Response by its getRequestListener, as
// `serve` does). Not with Node's own Response: undici's are reclaimed only after the event
// loop runs, and a long synchronous loop of them exhausts the heap. What bench/fetch-middleware.mjs
// measures end to end, split: the decision's share, apart from the server's and the
// Response's. Each mode runs ROUNDS times, alternating, after a warm-up; medians.
//
//   npm run build && node bench/fetch-path.mjs [--dist DIR] [rounds, default 7]
//
// `--dist DIR`: another build's dist/ (an older commit's, for before/after; run both
// alternately). A build without takeRateLimitFields has no `taken` mode.
//
// Modes: bare (the handler alone), touched (the handler, then the three fields set through
// `response.headers`, as the middleware sets them), limited (rateLimitFetch), taken
// (rateLimitFetch, the handler spreading takeRateLimitFields(request) into its init).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { getRequestListener } from '@hono/node-server';

const distAt = process.argv.indexOf('--dist');
const dist =
  distAt > 0 ? pathToFileURL(`${resolve(process.argv[distAt + 1])}/`).href : new URL('../dist/', import.meta.url).href;
const rounds = Number(
  process.argv.slice(2).find((arg, i, all) => !arg.startsWith('--') && all[i - 1] !== '--dist') ?? 7,
);
getRequestListener(() => new Response('unused'));
const { createLimiter } = await import(new URL('lib/index.js', dist).href);
const { rateLimitFetch, takeRateLimitFields } = await import(new URL('lib/fetch.js', dist).href);

const plain = { 'content-type': 'text/plain' };
const FIELDS = [
  ['X-RateLimit-Limit', '1000000000'],
  ['X-RateLimit-Remaining', '999999999'],
  ['X-RateLimit-Reset', '1'],
];
const bucket = () => createLimiter('token-bucket', { limit: 1_000_000_000, windowMs: 1000 });
const handler = () => new Response('ok', { headers: plain });
const modes = {
  bare: handler,
  touched: () => {
    const response = handler();
    const { headers } = response;
    for (const [name, value] of FIELDS) if (!headers.has(name)) headers.set(name, value);
    return response;
  },
  limited: rateLimitFetch(handler, { limiter: bucket() }),
};
if (takeRateLimitFields !== undefined)
  modes.taken = rateLimitFetch((request) => new Response('ok', { headers: takeRateLimitFields(request, plain) }), {
    limiter: bucket(),
  });
// What @hono/node-server passes after the request: its env, whose incoming socket gives the address.
const env = { incoming: { socket: { remoteAddress: '127.0.0.1' } }, outgoing: {} };
const request = new Request('http://127.0.0.1/');
const BATCH = 200_000;
let sink = 0;

/** CPU ns per call of `fn` over one batch. */
function run(fn) {
  const start = process.cpuUsage();
  for (let i = 0; i < BATCH; i++) sink += fn(request, env).status;
  const { user, system } = process.cpuUsage(start);
  return ((user + system) * 1000) / BATCH;
}

const figures = Object.fromEntries(Object.keys(modes).map((mode) => [mode, []]));
for (const fn of Object.values(modes)) for (let i = 0; i < 5; i++) run(fn); // warm-up
for (let round = 0; round < rounds; round++)
  for (const [mode, fn] of Object.entries(modes)) figures[mode].push(run(fn));
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(`@hono/node-server's Response, ${rounds} rounds of ${BATCH} calls, CPU ns per call (medians):`);
for (const mode of Object.keys(modes))
  console.log(`  ${mode.padEnd(8)} ${median(figures[mode]).toFixed(0).padStart(6)}`);
if (sink === 0) console.log('(no calls)');
