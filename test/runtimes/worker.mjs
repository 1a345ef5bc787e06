// A Cloudflare Worker (module syntax) serving the matrix app on workerd, through Miniflare.
// Workers give no peer address: the key is CF-Connecting-IP, which Cloudflare sets.
import * as ratelab from '../../dist/lib/index.js';
import * as fetchEntry from '../../dist/lib/fetch.js';
import { createApp } from './app.mjs';

const app = createApp(ratelab, fetchEntry, { key: fetchEntry.cfConnectingIp() });

export default {
  fetch: (request, env, ctx) => app(request, env, ctx),
};
