// Client-side throttling in front of someone else's API: `node examples/third-party-api.mjs`
// from the package root (it imports `ratelab` by name, i.e. the built dist/). The part
// between the README markers is the README's "In front of someone else's API" example,
// word for word (test/wait/example.test.ts runs this file and compares the two).
//
// The two "APIs" are stand-ins that enforce their published limits the way a provider
// does, answering 429 to a call over the limit; the run prints how many 429s each saw
// (none: the callers waited for their slots instead).
import { createLimiter, throttle } from 'ratelab';

/** A fake provider: `perWindow` calls per `windowMs` per account (sliding), 429 beyond. */
function fakeApi(name, perWindow, windowMs) {
  const calls = new Map();
  const api = {
    name,
    rejected: 0,
    served: 0,
    async call(account, body) {
      const now = Date.now();
      const recent = (calls.get(account) ?? []).filter((t) => t > now - windowMs);
      if (recent.length >= perWindow) {
        api.rejected++;
        return { status: 429 };
      }
      recent.push(now);
      calls.set(account, recent);
      api.served++;
      return { status: 200, body };
    },
  };
  return api;
}

const paymentProvider = fakeApi('payments', 100, 1000);
const llmApi = fakeApi('llm', 60, 60_000);

// README:start
// The payment provider allows 100 requests per second per account. The sliding log is
// exact: never more than 100 in any window of 1.1 s. The provider counts calls when they
// arrive, which trails our decisions by a latency that varies: the 100 ms margin keeps a
// call that left late from landing in the same second as the ones after it.
const payments = createLimiter('sliding-log', { limit: 100, windowMs: 1100 });

const charge = throttle((account, cents) => paymentProvider.call(account, { cents }), {
  limiter: payments,
  key: (account) => account, // each account has its own 100/s
  maxWaitMs: 5_000, // a queue longer than 5 s is an outage: fail fast with WAIT_TOO_LONG
});

// The LLM API allows 60 requests per minute. A token bucket lets 5 go at once, then
// spaces the rest 1.09 s apart: at most burst + rate x time = 5 + 55 = 60 in any minute,
// instead of 60 at once and then a minute of 429s.
const llm = createLimiter('token-bucket', { limit: 55, windowMs: 60_000, burst: 5 });

const complete = throttle((prompt) => llmApi.call('me', { prompt }), { limiter: llm });

// Callers just call: each call waits for its slot, then runs; calls of a key in the order made.
const [receipts, answers] = await Promise.all([
  Promise.all(Array.from({ length: 150 }, (_, i) => charge('acct_42', 100 + i))), // about 1.1 s
  Promise.all(['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((doc) => complete(`Summarise ${doc}`))), // about 2.2 s
]);
// README:end

const ok = (results) => results.filter((r) => r.status === 200).length;
console.log(
  JSON.stringify({
    payments: { calls: receipts.length, ok: ok(receipts), rejected: paymentProvider.rejected },
    llm: { calls: answers.length, ok: ok(answers), rejected: llmApi.rejected },
  }),
);
