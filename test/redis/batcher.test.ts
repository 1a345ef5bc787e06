import { describe, expect, it } from 'vitest';
import { ScriptBatcher, type BatchCall } from '../../src/redis/batcher.js';
import type { ScriptClient } from '../../src/redis/run-script.js';
import { luaScript } from '../../src/redis/scripts.js';
import { DeadlineQueue } from '../../src/redis/timeout.js';

// The batcher on a scripted client: which script calls a turn's decisions become, and
// whose replies go where. Redis itself is in batch-parity.test.ts.
interface Sent {
  keys: readonly string[];
  answer(replies: unknown): void;
  fail(error: unknown): void;
}

function fakeClient(): { client: ScriptClient; sent: Sent[] } {
  const sent: Sent[] = [];
  const client: ScriptClient = {
    cluster: false,
    run: (_script, keys) =>
      new Promise((resolve, reject) => {
        sent.push({ keys: keys.map(String), answer: resolve, fail: reject });
      }),
    del: () => Promise.resolve(0),
    slotOf: () => 0,
    nodeOf: () => 'server',
    nodeFailed: () => undefined,
  };
  return { client, sent };
}

interface Outcome {
  replies?: readonly unknown[];
  at?: number;
  error?: unknown;
}

function call(key: string, outcomes: Map<string, Outcome>): BatchCall {
  return {
    key,
    cost: '1',
    now: '',
    answer: (replies, at) => outcomes.set(key, { replies, at }),
    fail: (error) => outcomes.set(key, { error }),
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));
const keys = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `k${from + i}`);
const fourEach = (batch: readonly string[]) => batch.flatMap((key, i) => [1, i, 0, Number(key.slice(1))]);

describe('ScriptBatcher: the script calls a turn of decisions becomes', () => {
  it.each([
    // [calls in the turn, maxKeys, sizes of the script calls sent]
    [1, 64, [1]],
    [7, 64, [7]], // below 8: one call, a second would cost more than the overlap saves
    [8, 64, [4, 4]], // nothing in flight: two calls, so Redis works while replies are read
    [50, 64, [25, 25]],
    [51, 64, [26, 25]],
    [500, 64, [64, 64, 64, 64, 64, 64, 64, 52]], // already more than one call: capped only
    [50, 16, [16, 16, 16, 2]],
  ])('%i calls in one turn, maxKeys %i: script calls of %j keys', async (count, maxKeys, sizes) => {
    const { client, sent } = fakeClient();
    const batcher = new ScriptBatcher(client, luaScript('test', 'return {}'), new DeadlineQueue(60_000), maxKeys);
    const outcomes = new Map<string, Outcome>();
    for (const key of keys(count)) batcher.submit(0, call(key, outcomes));
    expect(sent).toHaveLength(0); // nothing goes out before the turn ends
    await turn();
    expect(sent.map((s) => s.keys.length)).toEqual(sizes);
    expect(sent.flatMap((s) => s.keys)).toEqual(keys(count)); // in request order
  });

  it('with split off, an idle turn goes as one script call (up to maxKeys)', async () => {
    const { client, sent } = fakeClient();
    const batcher = new ScriptBatcher(client, luaScript('test', 'return {}'), new DeadlineQueue(60_000), 64, false);
    const outcomes = new Map<string, Outcome>();
    for (const key of keys(50)) batcher.submit(0, call(key, outcomes));
    await turn();
    expect(sent.map((s) => s.keys.length)).toEqual([50]);
  });

  it('does not split while a script call is in flight: the pipeline already overlaps', async () => {
    const { client, sent } = fakeClient();
    const batcher = new ScriptBatcher(client, luaScript('test', 'return {}'), new DeadlineQueue(60_000), 64);
    const outcomes = new Map<string, Outcome>();
    batcher.submit(0, call('first', outcomes));
    await turn();
    for (const key of keys(20)) batcher.submit(0, call(key, outcomes));
    await turn();
    expect(sent.map((s) => s.keys.length)).toEqual([1, 20]);
    (sent[0] as Sent).answer([1, 0, 0, 0]);
    (sent[1] as Sent).answer(fourEach(keys(20)));
    await turn();
    for (const key of keys(20, 20)) batcher.submit(0, call(key, outcomes));
    await turn();
    expect(sent.map((s) => s.keys.length)).toEqual([1, 20, 10, 10]); // idle again: split
  });

  it("gives each call its own entries of its script call's reply, and fails only the calls of a failed one", async () => {
    const { client, sent } = fakeClient();
    const batcher = new ScriptBatcher(client, luaScript('test', 'return {}'), new DeadlineQueue(60_000), 64);
    const outcomes = new Map<string, Outcome>();
    for (const key of keys(10)) batcher.submit(0, call(key, outcomes));
    await turn();
    const [first, second] = sent as [Sent, Sent];
    first.answer(fourEach(first.keys));
    second.fail(new Error('boom'));
    await turn();
    for (const [i, key] of first.keys.entries()) {
      const { replies, at } = outcomes.get(key) as Outcome;
      expect(replies?.slice(at, (at ?? 0) + 4)).toEqual([1, i, 0, Number(key.slice(1))]);
    }
    for (const key of second.keys) expect((outcomes.get(key)?.error as Error).message).toBe('boom');
  });
});
