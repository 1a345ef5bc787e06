// Bun: Bun.serve on a free loopback port with the matrix app; prints { port, version }.
/* global Bun */
import * as ratelab from '../../dist/lib/index.js';
import * as fetchEntry from '../../dist/lib/fetch.js';
import { createApp } from './app.mjs';

const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: createApp(ratelab, fetchEntry) });
console.log(JSON.stringify({ port: server.port, runtime: 'bun', version: Bun.version }));
