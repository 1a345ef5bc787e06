// One limit across every isolate of a Worker: the limiter lives in a Durable Object, one
// object per client key (`idFromName(key)`), and the Worker's rateLimitFetch asks it through
// a LimiterLike whose consume is a call to the object. The example docs/http.md shows, run
// on workerd by test/runtimes/durable-object.test.ts.
import { createLimiter } from '../../dist/lib/index.js';
import { cfConnectingIp, rateLimitFetch } from '../../dist/lib/fetch.js';

/** The policy every key's object enforces: 3 per minute. */
const POLICY = { limit: 3, windowMs: 60_000 };

/** The Durable Object: one memory limiter, deciding every request of its one key. */
export class KeyLimiter {
  limiter = createLimiter('sliding-log', POLICY);

  async fetch(request) {
    const { key, cost } = await request.json();
    return Response.json(this.limiter.consume(key, cost));
  }
}

/** The limiter the middleware sees: each decision made by the key's object. */
function durableLimiter(namespace) {
  return {
    limits: createLimiter('sliding-log', POLICY).limits,
    consume: async (key, cost = 1) => {
      const object = namespace.get(namespace.idFromName(key));
      const answer = await object.fetch('https://limiter/', { method: 'POST', body: JSON.stringify({ key, cost }) });
      return answer.json();
    },
  };
}

let limited;

export default {
  fetch(request, env, ctx) {
    // The namespace comes with the first request's env: the middleware is built then, once.
    limited ??= rateLimitFetch(() => new Response('ok'), {
      limiter: durableLimiter(env.LIMITER),
      key: cfConnectingIp(),
    });
    return limited(request, env, ctx);
  },
};
