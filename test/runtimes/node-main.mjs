// Node: Hono on @hono/node-server (Node's own Request/Response) on a free loopback port,
// rateLimitHono in front of a route, and the matrix app's /contract and /taken; prints { port, version }.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import * as ratelab from '../../dist/lib/index.js';
import * as fetchEntry from '../../dist/lib/fetch.js';
import { SMOKE_POLICY, createApp } from './app.mjs';

const contract = createApp(ratelab, fetchEntry);
const app = new Hono();
let lastKey;
app.post('/contract', (c) => contract(c.req.raw));
app.get('/taken', (c) => contract(c.req.raw, c.env)); // rateLimitFetch with takeRateLimitFields, before rateLimitHono
app.use(
  fetchEntry.rateLimitHono({
    limiter: ratelab.createLimiter('fixed-window', SMOKE_POLICY, { clock: new ratelab.ManualClock(0) }),
    headers: { ietf: { policyName: 'smoke' } },
    onDecision: (result) => {
      lastKey = result.key;
    },
  }),
);
app.get('/', (c) => c.text('ok', 200, { 'x-ratelab-key': String(lastKey) }));
serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, ({ port }) =>
  console.log(JSON.stringify({ port, runtime: 'node', version: process.versions.node })),
);
