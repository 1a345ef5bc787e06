// The adaptive client on a ManualClock: the brain's gates (pause, budget, pacing), its
// AIMD steps and SRE probability, then adaptiveThrottle's retries, bounds and abort.
import { describe, expect, it } from 'vitest';
import { ManualClock, RatelabError, adaptiveThrottle, createAdaptiveLimiter, createLimiter } from '../../src/index.js';
import { readServerLimit, type ServerLimit } from '../../src/core/server-limit.js';
import { rateLimitHeaders } from '../../src/http/headers.js';
import { AdaptiveBrain } from '../../src/wait/adaptive-brain.js';

/** Awaits `promise`, expecting a RatelabError with `code` naming `field`. */
async function expectRatelabError(promise: Promise<unknown>, code: string, field: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(RatelabError);
  expect((error as RatelabError).code).toBe(code);
  expect((error as RatelabError).field).toBe(field);
}

/** Enough turns for timers' resolutions and fetch continuations to run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

/** Advances `clock` to `to` in steps of `step` ms, settling after each. */
async function runTo(clock: ManualClock, to: number, step = 1): Promise<void> {
  while (clock.now() < to) {
    clock.advance(Math.min(step, to - clock.now()));
    await settle();
  }
}

type Reply = { status: number; headers: Record<string, string> };
const NOTHING: ServerLimit = { announced: false, problems: [] };
const read = (headers: Record<string, string>): ServerLimit => readServerLimit(headers, 0);

/** A fetch that answers from a script (then 200), recording when each request was sent. */
function scripted(clock: ManualClock, replies: Reply[], then: Reply = { status: 200, headers: {} }) {
  const sent: number[] = [];
  const fetchLike = (_url: unknown, _init?: { method?: string; signal?: AbortSignal }) => {
    sent.push(clock.now());
    return Promise.resolve(replies.shift() ?? then);
  };
  return { sent, fetchLike };
}

describe('the pause: a 429 with Retry-After holds the key, then the calls restart paced', () => {
  it('steps', async () => {
    const clock = new ManualClock(0);
    const { sent, fetchLike } = scripted(clock, [
      { status: 429, headers: { 'Retry-After': '2', 'RateLimit-Policy': '"p";q=10;w=1' } },
    ]);
    const client = adaptiveThrottle(fetchLike, { clock, jitter: 0 });
    const calls = Array.from({ length: 5 }, () => client('https://api.test/items'));
    const steps: { at: number; sent: number; why: string }[] = [
      { at: 0, sent: 1, why: "until the key's first response, one request at a time (the probe)" },
      { at: 1999, sent: 1, why: 'the probe got 429 Retry-After: 2: nothing is sent during the pause' },
      { at: 2000, sent: 2, why: 'the pause ends: one request' },
      { at: 2105, sent: 2, why: 'then paced at the policy 10/s x safety 0.95: one per 105.3 ms' },
      { at: 2106, sent: 3, why: 'the next slot' },
      { at: 2422, sent: 6, why: 'the five calls and the retry of the probe, 105.3 ms apart' },
    ];
    for (const step of steps) {
      await runTo(clock, step.at);
      await settle();
      expect(sent.length, `${step.at} ms: ${step.why}`).toBe(step.sent);
    }
    expect((await Promise.all(calls)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(client.stats()).toMatchObject({ sent: 6, throttled: 1, retried: 1, rejectedLocally: 0 });
    expect(client.stats().keys['api.test']).toMatchObject({
      policy: { limit: 10, windowMs: 1000, field: 'RateLimit-Policy' },
      ratePerSec: 9.5,
      rateSource: 'policy',
      pausedForMs: 0,
    });
  });

  it.each([
    { u: 0, pausedForMs: 2000, why: 'the draw 0: exactly the Retry-After' },
    { u: 0.5, pausedForMs: 2200, why: 'half way: a tenth more' },
    { u: 0.999, pausedForMs: 2399.6, why: 'the bound: under Retry-After x (1 + jitter 0.2)' },
  ])('jitter: random $u pauses $pausedForMs ms ($why)', ({ u, pausedForMs }) => {
    const clock = new ManualClock(0);
    const events: number[] = [];
    const limiter = createAdaptiveLimiter({ clock, random: () => u, onThrottle: (e) => events.push(e.pausedForMs) });
    limiter.observe('k', { status: 429, headers: { 'retry-after': '2' } });
    expect(events).toEqual([pausedForMs]);
    expect(limiter.stats().keys['k']?.pausedForMs).toBeCloseTo(pausedForMs, 6);
  });

  it('a 200 announcing nothing remaining holds the key until the reset (the budget)', async () => {
    const clock = new ManualClock(0);
    const limiter = createAdaptiveLimiter({ clock });
    await limiter.wait('k');
    limiter.observe('k', {
      status: 200,
      headers: { 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '5' },
    });
    let done = false;
    void limiter.wait('k').then(() => (done = true));
    await runTo(clock, 4999, 100);
    expect(done, 'remaining 0 until the reset 5 s away').toBe(false);
    await runTo(clock, 5000);
    expect(done, 'the reset passed: the budget is unknown again').toBe(true);
  });
});

describe('the herd: 100 callers paused by one Retry-After: 2', () => {
  it('send nothing during the pause, then no more than the learned burst in any 10 ms, and no 429', async () => {
    const clock = new ManualClock(0);
    const server = createLimiter('token-bucket', { limit: 20, windowMs: 1000, burst: 20 }, { clock });
    const policy = { name: 'p', limits: server.limits };
    const sent: number[] = [];
    let first = true;
    let denied = 0;
    const fetchLike = (_url: string) => {
      sent.push(clock.now());
      if (first) {
        first = false;
        return Promise.resolve({ status: 429, headers: { 'Retry-After': '2', 'RateLimit-Policy': '"p";q=20;w=1' } });
      }
      const decision = server.consume('k');
      if (!decision.allowed) denied++;
      const headers = Object.fromEntries(rateLimitHeaders(decision, policy, { ietf: true }));
      return Promise.resolve({ status: decision.allowed ? 200 : 429, headers });
    };
    const client = adaptiveThrottle(fetchLike, { clock, random: () => 0.5 });
    const calls = Array.from({ length: 100 }, () => client('https://api.test/'));
    await runTo(clock, 12_000, 5);
    expect((await Promise.all(calls)).every((r) => r.status === 200)).toBe(true);
    const [probe = 0, ...rest] = sent;
    expect(rest.filter((t) => t < probe + 2000)).toEqual([]);
    const mostIn10ms = Math.max(...sent.map((t) => sent.filter((u) => u >= t && u < t + 10).length));
    expect(mostIn10ms).toBeLessThanOrEqual(20);
    expect(denied).toBe(0);
  });
});

describe('AIMD without headers (the brain, step by step)', () => {
  it('cuts the measured rate in half on a throttle, once per round, and grows by a fifth of it per second', () => {
    const brain = new AdaptiveBrain({}, () => 0);
    const rate = (t: number) => brain.insight('k', t).ratePerSec;
    const send = (t: number) => expect(brain.consume('k', 1, t).allowed, `send at ${t}`).toBe(true);
    for (let t = 0; t < 1000; t += 100) {
      send(t);
      brain.learn('k', false, NOTHING, t);
    }
    const steps: {
      t: number;
      event: 'ok' | 'throttle' | 'late-throttle';
      sentAt?: number;
      rate: number | undefined;
      why: string;
    }[] = [
      { t: 900, event: 'ok', rate: undefined, why: 'ten accepted: nothing limits the sends yet' },
      { t: 950, event: 'throttle', rate: 5.5, why: 'a 503 with no headers: the measured 11/s, halved' },
      { t: 960, event: 'late-throttle', sentAt: 900, rate: 5.5, why: 'sent before the cut: not cut again' },
      { t: 1450, event: 'ok', rate: 6.6, why: '+ 0.2 x 11/s per second: +1.1 after 0.5 s' },
      { t: 1950, event: 'ok', rate: 6.6, why: 'sending 2/s: capped at twice the measured rate' },
      { t: 2200, event: 'throttle', rate: 1.5, why: 'cut from what was sent (3/s), not from the allowance' },
    ];
    for (const step of steps) {
      if (step.event !== 'late-throttle' && step.t !== 900) send(step.t);
      if (step.t !== 900) brain.learn('k', step.event !== 'ok', NOTHING, step.t, step.sentAt ?? step.t);
      const got = rate(step.t);
      if (step.rate === undefined) expect(got, step.why).toBeUndefined();
      else expect(got, step.why).toBeCloseTo(step.rate, 9);
    }
  });

  it('never goes below aimd.minRatePerSec', () => {
    const brain = new AdaptiveBrain({ aimd: { minRatePerSec: 2 } }, () => 0);
    brain.consume('k', 1, 0);
    brain.learn('k', true, NOTHING, 0, 0);
    expect(brain.insight('k', 0).ratePerSec).toBe(2);
  });

  it('a throttle of requests sent before the policy was known is explained by it: no cut', () => {
    const brain = new AdaptiveBrain({}, () => 0);
    brain.consume('k', 1, 0);
    brain.learn('k', false, read({ 'RateLimit-Policy': '"p";q=10;w=1' }), 5);
    brain.learn('k', true, read({ 'Retry-After': '1' }), 6, 0);
    expect(brain.insight('k', 6)).toMatchObject({ ratePerSec: 9.5, rateSource: 'policy' });
  });
});

describe('SRE local rejection: p = max(0, (requests - k x accepts) / (requests + 1))', () => {
  it.each([
    { requests: 10, accepts: 10, p: 0, why: 'all accepted' },
    { requests: 10, accepts: 5, p: 0, why: 'k = 2: half accepted is still 0' },
    { requests: 10, accepts: 3, p: 4 / 11, why: '(10 - 6) / 11' },
    { requests: 10, accepts: 0, p: 10 / 11, why: 'nothing accepted' },
    { requests: 100, accepts: 0, p: 100 / 101, why: 'never 1: a request always gets through now and then' },
  ])('$requests requests, $accepts accepted: p = $p ($why)', ({ requests, accepts, p }) => {
    const brain = new AdaptiveBrain({ rejectLocally: { k: 2 } }, () => 0.999_999);
    for (let i = 0; i < requests; i++) expect(brain.rejectLocally('k', i)).toBe(false);
    for (let i = 0; i < accepts; i++) brain.learn('k', false, NOTHING, requests);
    expect(brain.rejectProbability('k', requests)).toBeCloseTo(p, 12);
  });

  it('a seeded draw below p rejects with REJECTED_LOCALLY (counted), above it sends; the window forgets', async () => {
    const clock = new ManualClock(0);
    const draws = [0.999, 0.999, 0.999, 0.999, 0.5, 0.9];
    const limiter = createAdaptiveLimiter({
      clock,
      rejectLocally: { k: 2, windowMs: 10_000 },
      random: () => draws.shift() ?? 0.999,
    });
    for (let i = 0; i < 4; i++) {
      await limiter.wait('k');
      limiter.observe('k', { status: 503 });
      await runTo(clock, clock.now() + 3000, 100);
    }
    // 4 requests, 0 accepts: p = 4/5 = 0.8. The draw 0.5 rejects, 0.9 does not.
    await expectRatelabError(limiter.wait('k'), 'REJECTED_LOCALLY', 'rejectLocally');
    expect(limiter.stats().rejectedLocally).toBe(1);
    await runTo(clock, clock.now() + 60_000, 1000);
    const sent = limiter.stats().sent;
    await limiter.wait('k');
    expect(limiter.stats().sent).toBe(sent + 1);
  });
});

describe('adaptiveThrottle: retries are bounded and the caller chooses which', () => {
  const always429 = { status: 429, headers: { 'Retry-After': '1' } };
  it.each([
    { options: {}, method: 'GET', sends: 4, why: 'default: idempotent methods, 3 retries, then the 429 itself' },
    { options: { maxRetries: 1 }, method: 'GET', sends: 2, why: 'maxRetries 1' },
    { options: { maxWaitMs: 1500 }, method: 'GET', sends: 2, why: 'a second retry would wait past maxWaitMs' },
    { options: { retry: 'never' as const }, method: 'GET', sends: 1, why: 'retry never' },
    { options: {}, method: 'POST', sends: 1, why: 'POST is not idempotent: not retried by default' },
    { options: { retry: 'always' as const, maxRetries: 2 }, method: 'POST', sends: 3, why: 'retry always' },
  ])('$why: $sends sends', async ({ options, method, sends }) => {
    const clock = new ManualClock(0);
    const { sent, fetchLike } = scripted(clock, [], always429);
    const client = adaptiveThrottle(fetchLike, { clock, jitter: 0, ...options });
    const call = client('https://api.test/', { method });
    await runTo(clock, 30_000, 50);
    expect((await call).status).toBe(429);
    expect(sent.length).toBe(sends);
    expect(client.stats()).toMatchObject({ sent: sends, throttled: sends, retried: sends - 1 });
  });

  it('a first send that would wait past maxWaitMs rejects with WAIT_TOO_LONG, sending nothing', async () => {
    const clock = new ManualClock(0);
    const { sent, fetchLike } = scripted(clock, []);
    const client = adaptiveThrottle(fetchLike, { clock, jitter: 0, maxWaitMs: 1000 });
    client.limiter.observe('api.test', { status: 429, headers: { 'Retry-After': '10' } });
    await expectRatelabError(client('https://api.test/'), 'WAIT_TOO_LONG', 'maxWaitMs');
    expect(sent).toEqual([]);
  });

  it("abort: a call waiting out a pause rejects with the signal's reason and is never sent", async () => {
    const clock = new ManualClock(0);
    const { sent, fetchLike } = scripted(clock, []);
    const client = adaptiveThrottle(fetchLike, { clock, jitter: 0 });
    client.limiter.observe('api.test', { status: 429, headers: { 'Retry-After': '10' } });
    const controller = new AbortController();
    const call = client('https://api.test/', { signal: controller.signal });
    await runTo(clock, 500, 100);
    controller.abort(new Error('user left'));
    await expect(call).rejects.toThrow('user left');
    await runTo(clock, 11_000, 500);
    expect(sent).toEqual([]);
  });

  it("wraps the global fetch as it is typed, keeping fetch's signature", () => {
    const client = adaptiveThrottle(fetch, { clock: new ManualClock(0) });
    const call: (input: string | URL | Request, init?: RequestInit) => Promise<Response> = client;
    expect(typeof call).toBe('function');
    expect(client.stats()).toEqual({ sent: 0, throttled: 0, retried: 0, rejectedLocally: 0, keys: {} });
  });

  it('keys by host by default, or by the key option', async () => {
    const clock = new ManualClock(0);
    const { fetchLike } = scripted(clock, []);
    const byHost = adaptiveThrottle(fetchLike, { clock });
    await byHost('https://a.test/x');
    await byHost(new URL('https://b.test:8443/y'));
    await byHost({ url: 'not a url' } as never);
    expect(Object.keys(byHost.stats().keys)).toEqual(['a.test', 'b.test:8443', 'default']);
    const byAccount = adaptiveThrottle(fetchLike, {
      clock,
      key: (_url, init) => (init as { account: string }).account,
    });
    await byAccount('https://a.test/', { account: 'acme' } as never);
    expect(Object.keys(byAccount.stats().keys)).toEqual(['acme']);
  });

  it('onLearn says what was learned, and each malformed field as one line', () => {
    const clock = new ManualClock(0);
    const events: { why: string; problems: string[] }[] = [];
    const limiter = createAdaptiveLimiter({ clock, onLearn: ({ why, problems }) => events.push({ why, problems }) });
    limiter.observe('k', { status: 200, headers: { 'RateLimit-Policy': '"p";q=10;w=1' } });
    limiter.observe('k', { status: 200, headers: { 'Retry-After': 'soon' } });
    expect(events).toEqual([
      { why: 'policy', problems: [] },
      { why: 'problem', problems: ['Retry-After: neither delay-seconds nor an HTTP-date'] },
    ]);
  });

  it.each([
    [{ safety: 0 }, 'safety'],
    [{ jitter: 2 }, 'jitter'],
    [{ retry: 'sometimes' }, 'retry'],
    [{ maxRetries: -1 }, 'maxRetries'],
    [{ maxWaitMs: Number.NaN }, 'maxWaitMs'],
    [{ rejectLocally: { k: 0.5 } }, 'rejectLocally.k'],
    [{ initial: { limit: 10 } }, 'initial'],
    [{ onThrottle: 'log' }, 'onThrottle'],
  ])('bad option %j: INVALID_ARGUMENT naming %s', (options, field) => {
    let error: unknown;
    try {
      adaptiveThrottle(() => Promise.resolve({ status: 200 }), options as never);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(RatelabError);
    expect((error as RatelabError).field).toBe(field);
    expect((error as RatelabError).message).not.toContain('\n');
  });
});
