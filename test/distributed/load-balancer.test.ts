import { describe, expect, it } from 'vitest';
import { LoadBalancer, nodeWeight } from '../../src/sim/distributed/load-balancer.js';
import { Random } from '../../src/traffic/random.js';

function counts(balancer: LoadBalancer, nodes: number, picks: number): number[] {
  const tally = new Array<number>(nodes).fill(0);
  for (let i = 0; i < picks; i++) tally[balancer.next()]! += 1;
  return tally;
}

describe('LoadBalancer', () => {
  it('even: round robin, node 0 first', () => {
    const balancer = new LoadBalancer('even', 3, new Random(1));
    expect(Array.from({ length: 7 }, () => balancer.next())).toEqual([0, 1, 2, 0, 1, 2, 0]);
  });

  it.each([2, 4, 8])(
    'skewed over %i nodes: node i gets weight 1 / (i + 1), within four standard deviations',
    (nodes) => {
      const picks = 40_000;
      const tally = counts(new LoadBalancer('skewed', nodes, new Random(3)), nodes, picks);
      tally.forEach((count, i) => {
        const p = nodeWeight('skewed', nodes, i);
        expect(Math.abs(count - p * picks)).toBeLessThan(4 * Math.sqrt(picks * p * (1 - p)));
      });
    },
  );

  it('nodeWeight: shares add up to 1; 4 skewed nodes get 48%, 24%, 16%, 12%', () => {
    expect([0, 1, 2, 3].map((i) => Math.round(nodeWeight('skewed', 4, i) * 100))).toEqual([48, 24, 16, 12]);
    expect([0, 1, 2].map((i) => nodeWeight('even', 3, i))).toEqual([1 / 3, 1 / 3, 1 / 3]);
  });

  it('the same seed gives the same picks', () => {
    const picks = (seed: number) => counts(new LoadBalancer('skewed', 5, new Random(seed)), 5, 1000);
    expect(picks(11)).toEqual(picks(11));
  });
});
