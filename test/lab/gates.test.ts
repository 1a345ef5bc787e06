import { describe, expect, it } from 'vitest';
import { numberFlag } from '../../src/cli/flags.js';
import { checkGates } from '../../src/sim/gates.js';
import { comparisonRow } from '../support/comparison-row.js';

/** A row of edge-attack, the scenario the gates' messages name. */
function row(algorithm: string, worstWindowRatio: number, errorRate: number) {
  return comparisonRow(algorithm, worstWindowRatio, errorRate, { scenario: 'edge-attack' });
}

describe('checkGates', () => {
  const rows = [row('fixed-window', 2, 0), row('sliding-log', 1, 0), row('sliding-counter', 1.99, 6.5)];

  it.each([
    { gates: {}, broken: [] },
    { gates: { maxWorstWindow: 2 }, broken: [] },
    { gates: { maxWorstWindow: 1.5 }, broken: ['fixed-window', 'sliding-counter'] },
    { gates: { maxWorstWindow: 1 }, broken: ['fixed-window', 'sliding-counter'] },
    { gates: { maxErrorPercent: 5 }, broken: ['sliding-counter'] },
    { gates: { maxErrorPercent: 6.5 }, broken: [] },
    {
      gates: { maxWorstWindow: 1.5, maxErrorPercent: 0 },
      broken: ['fixed-window', 'sliding-counter', 'sliding-counter'],
    },
  ])('$gates breaks $broken', ({ gates, broken }) => {
    expect(checkGates(rows, gates).map((v) => v.algorithm)).toEqual(broken);
  });

  it('names the scenario, the algorithm, the figure and the bound', () => {
    const [first] = checkGates(rows, { maxWorstWindow: 1.5 });
    expect(first?.message).toBe(
      'edge-attack / fixed-window: worst window 2.00x the limit, above --max-worst-window 1.5',
    );
  });
});

describe('numberFlag', () => {
  it.each([
    ['1.5', 1.5],
    ['2', 2],
    ['0.25', 0.25],
    ['5%', 5],
    ['.5', 0.5],
  ])('reads %s', (text, value) => expect(numberFlag(text, '--max-error', 0, 100)).toBe(value));

  it.each(['-1', 'abc', '1e3', '', 'NaN', '101'])('refuses %j naming the flag', (text) => {
    expect(() => numberFlag(text, '--max-error', 0, 100)).toThrow(/^--max-error: expected a number from 0 to 100/);
  });
});
