// Deno: Deno.serve on a free loopback port with the matrix app; prints { port, version }.
/* global Deno */
import * as ratelab from '../../dist/lib/index.js';
import * as fetchEntry from '../../dist/lib/fetch.js';
import { createApp } from './app.mjs';

Deno.serve(
  {
    hostname: '127.0.0.1',
    port: 0,
    onListen: ({ port }) => console.log(JSON.stringify({ port, runtime: 'deno', version: Deno.version.deno })),
  },
  createApp(ratelab, fetchEntry),
);
