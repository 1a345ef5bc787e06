import { describe, expect, it } from 'vitest';
import { compileBatch, type LoopState } from '../../src/bench/batch-loop.js';
import { createDecide } from '../../src/bench/subjects.js';
import { BATCH } from '../../src/bench/workloads.js';

const keys = ['a', 'b', 'c'];
const sequence = Uint32Array.from([0, 1, 2, 0]);

function fresh(): LoopState {
  return { now: 0, position: 0, decided: 0, admitted: 0 };
}

describe('compileBatch', () => {
  it('makes one batch of decisions over the key sequence, then steps the virtual clock', async () => {
    const state = fresh();
    const seen: Array<[string, number]> = [];
    const decide = (key: string) => {
      seen.push([key, state.now]);
      return key !== 'b';
    };
    const batch = compileBatch({ decide, keys, sequence, state, stepMs: 5, isAsync: false, name: 'test', size: 6 });
    await batch();
    expect(seen).toEqual([
      ['a', 0],
      ['b', 0],
      ['c', 0],
      ['a', 0],
      ['a', 0],
      ['b', 0],
    ]);
    expect(state).toEqual({ now: 5, position: 2, decided: 6, admitted: 4 });
  });

  it('reads { allowed } objects and awaits promises when asked to', async () => {
    const state = fresh();
    const decide = (key: string) => Promise.resolve({ allowed: key === 'c' });
    await compileBatch({ decide, keys, sequence, state, stepMs: 1, isAsync: true, name: 'async', size: 4 })();
    expect(state).toMatchObject({ decided: 4, admitted: 1 });
  });

  it('refuses an answer that is not a decision, naming the subject', async () => {
    const batch = compileBatch({
      decide: () => 'yes',
      keys,
      sequence,
      state: fresh(),
      stepMs: 1,
      isAsync: false,
      name: 'mine.mjs',
      size: 1,
    });
    expect(() => batch()).toThrow(/^mine\.mjs: consume\(\) must return \{ allowed: boolean \} or a boolean, got "yes"/);
  });

  it('feeds the reference and ratelab the same virtual time: both admit exactly the limit per window', async () => {
    const policy = { limit: 1500, windowMs: 1000 };
    for (const subject of [
      { kind: 'reference' as const },
      { kind: 'algorithm' as const, algorithm: 'token-bucket' as const },
    ]) {
      const state = fresh();
      const decide = await createDecide(subject, policy, () => state.now);
      // One key, 1,000 decisions per 500 ms: 4,000 offered in 2 s against 1,500 + 1,500/s * 1.5 s.
      const batch = compileBatch({
        decide,
        keys: ['k'],
        sequence: Uint32Array.of(0),
        state,
        stepMs: 500,
        isAsync: false,
        name: subject.kind,
      });
      for (let i = 0; i < 4; i++) await batch();
      expect(state.decided).toBe(4 * BATCH);
      expect(state.admitted).toBe(1500 + 750 * 3);
    }
  });
});
