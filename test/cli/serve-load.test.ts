import autocannon from 'autocannon';
import { expect, it } from 'vitest';
import { startServe } from './run-serve.js';

const REQUESTS = 2000;
const LIMIT = 100;

/** Every rate-limit field of one response, checked against its status and the policy. */
function checkResponse(status: number, raw: Record<string, unknown>): string | undefined {
  const h = Object.fromEntries(Object.entries(raw).map(([name, value]) => [name.toLowerCase(), String(value)]));
  const remaining = Number(h['x-ratelimit-remaining']);
  if (h['x-ratelimit-limit'] !== String(LIMIT)) return `limit ${h['x-ratelimit-limit']}`;
  if (!Number.isInteger(remaining) || remaining < 0 || remaining >= LIMIT)
    return `remaining ${h['x-ratelimit-remaining']}`;
  if (h.ratelimit !== `"default";r=${remaining};t=${h['x-ratelimit-reset']}` && status === 200)
    return `RateLimit ${h.ratelimit} vs remaining ${remaining}`;
  if (status === 200) return h['retry-after'] === undefined ? undefined : 'Retry-After on a 200';
  if (status !== 429) return `status ${status}`;
  const retryAfter = Number(h['retry-after']);
  if (!/^\d+$/.test(h['retry-after'] ?? '') || retryAfter < 1 || retryAfter > 60)
    return `Retry-After ${h['retry-after']}`;
  if (remaining !== 0) return `429 with remaining ${remaining}`;
  return h.ratelimit === `"default";r=0;t=${retryAfter}`
    ? undefined
    : `RateLimit ${h.ratelimit} vs Retry-After ${retryAfter}`;
}

// A bounded load test (2000 requests, 10 connections), not a speed measurement: nothing lost,
// the counts add up, and every response's fields agree with its status and the policy.
it('under load, ratelab serve loses no request and keeps its headers consistent', async () => {
  // The sliding log admits exactly LIMIT in any minute: a test this short sees exactly LIMIT 200s.
  const { url, io, stop } = await startServe({ algorithm: 'sliding-log', limit: LIMIT, window: '1m', log: true });
  const problems: string[] = [];
  const admittedRemaining: number[] = [];
  const statuses: Record<number, number> = {};
  try {
    const result = await autocannon({
      url,
      connections: 10,
      amount: REQUESTS,
      timeout: 10,
      requests: [
        {
          method: 'GET',
          headers: { 'x-api-key': 'load' },
          onResponse: (status, _body, _context, headers) => {
            statuses[status] = (statuses[status] ?? 0) + 1;
            const problem = checkResponse(status, headers as Record<string, unknown>);
            if (problem) problems.push(problem);
            if (status === 200)
              admittedRemaining.push(Number((headers as Record<string, string>)['X-RateLimit-Remaining']));
          },
        },
      ],
    });
    expect([result.errors, result.timeouts]).toEqual([0, 0]);
    expect(result['2xx'] + result.non2xx).toBe(REQUESTS);
    expect(statuses).toEqual({ 200: LIMIT, 429: REQUESTS - LIMIT });
    expect(problems).toEqual([]);
    // Each admission took one unit: remaining counted down LIMIT-1 .. 0, each value once.
    expect(admittedRemaining.sort((a, b) => b - a)).toEqual(Array.from({ length: LIMIT }, (_, i) => LIMIT - 1 - i));
  } finally {
    expect(await stop()).toBe(0);
  }
  // The server logged every request it answered: as many as the client counted.
  const lines = io.out().trim().split('\n');
  expect(lines).toHaveLength(REQUESTS);
  expect(lines.filter((line) => / GET \/ 200 /.test(line))).toHaveLength(LIMIT);
});
