// The Fetch application every runtime of the matrix serves (test/runtimes/runtimes.test.ts):
// POST /contract plays the contract tables sent (contract-runner.mjs); any other path is a
// trivial handler behind rateLimitFetch, 3 requests per minute on a ManualClock held at 0
// (so the fields are exact: Reset and Retry-After 60), X-RateLimit-* and the IETF fields.
// `x-ratelab-key` on an admitted response says which key the request was limited under.
// GET /taken: the same policy with a limiter of its own, the handler writing the fields into
// its own Response from takeRateLimitFields (the middleware then leaves that Response alone).
// Runtime-neutral: the runtime's own main module imports the built bundles and calls this.
import { revive, runContract } from './contract-runner.mjs';

/** The smoke test's policy: 3 per minute, fixed window. */
export const SMOKE_POLICY = { limit: 3, windowMs: 60_000 };

/** The application: `(request, ...rest) => Promise<Response>`, rest being what the runtime passes. */
export function createApp(ratelab, fetchEntry, options = {}) {
  let lastKey;
  const limited = fetchEntry.rateLimitFetch(
    () => new Response('ok', { headers: { 'content-type': 'text/plain', 'x-ratelab-key': String(lastKey) } }),
    {
      limiter: ratelab.createLimiter('fixed-window', SMOKE_POLICY, { clock: new ratelab.ManualClock(0) }),
      headers: { ietf: { policyName: 'smoke' } },
      onDecision: (result) => {
        lastKey = result.key;
      },
      ...options,
    },
  );
  const taken = fetchEntry.rateLimitFetch(
    (request) =>
      new Response('ok', { headers: fetchEntry.takeRateLimitFields(request, { 'content-type': 'text/plain' }) }),
    {
      limiter: ratelab.createLimiter('fixed-window', SMOKE_POLICY, { clock: new ratelab.ManualClock(0) }),
      headers: { ietf: { policyName: 'smoke' } },
      ...options,
    },
  );
  return async (request, ...rest) => {
    const { pathname } = new URL(request.url);
    if (pathname === '/contract') {
      const data = JSON.parse(await request.text(), revive);
      return Response.json(await runContract(ratelab, data));
    }
    if (pathname === '/taken') return taken(request, ...rest);
    return limited(request, ...rest);
  };
}
