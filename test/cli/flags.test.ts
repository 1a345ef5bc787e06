import { describe, expect, it } from 'vitest';
import { algorithmsFlag, wholeNumberFlag } from '../../src/cli/flags.js';
import { ALGORITHMS } from '../../src/core/policy.js';
import { RatelabError } from '../../src/core/errors.js';

/** The error a flag parser throws, or undefined when it returned. */
function errorOf(parse: () => unknown): RatelabError | undefined {
  try {
    parse();
    return undefined;
  } catch (error) {
    if (error instanceof RatelabError) return error;
    throw error;
  }
}

describe('wholeNumberFlag: the one whole-number rule of every command', () => {
  it.each([
    { value: '0', min: 0, max: 10, parsed: 0 },
    { value: '42', min: 1, max: undefined, parsed: 42 },
    { value: ' 7 ', min: 1, max: 10, parsed: 7 },
    { value: '1e4', min: 1, max: 10_000_000, parsed: 10_000 },
    { value: '1E6', min: 1, max: 10_000_000, parsed: 1_000_000 },
    { value: '25e2', min: 1, max: undefined, parsed: 2500 },
    { value: 65_535, min: 0, max: 65_535, parsed: 65_535 },
  ])('$value from $min to $max reads $parsed', ({ value, min, max, parsed }) => {
    expect(wholeNumberFlag(value, '--n', min, max)).toBe(parsed);
  });

  it.each([
    { value: '', min: 0, max: 10, message: '--n: expected a whole number from 0 to 10, got ""' },
    { value: '-3', min: 1, max: 10, message: '--n: expected a whole number from 1 to 10, got "-3"' },
    { value: '1.5', min: 1, max: undefined, message: '--n: expected a whole number >= 1, got "1.5"' },
    { value: '1.5e3', min: 1, max: undefined, message: '--n: expected a whole number >= 1, got "1.5e3"' },
    { value: '0x10', min: 1, max: undefined, message: '--n: expected a whole number >= 1, got "0x10"' },
    { value: '1e-3', min: 0, max: undefined, message: '--n: expected a whole number >= 0, got "1e-3"' },
    { value: '1e400', min: 1, max: undefined, message: '--n: expected a whole number >= 1, got "1e400"' },
    { value: '0', min: 1, max: undefined, message: '--n: expected a whole number >= 1, got "0"' },
    { value: '2e7', min: 1, max: 10_000_000, message: '--n: expected a whole number from 1 to 10000000, got "2e7"' },
    { value: 'ten', min: 1, max: 10, message: '--n: expected a whole number from 1 to 10, got "ten"' },
  ])('refuses $value (from $min to $max), naming the flag', ({ value, min, max, message }) => {
    const error = errorOf(() => wholeNumberFlag(value, '--n', min, max));
    expect(error?.code).toBe('INVALID_ARGUMENT');
    expect(error?.field).toBe('--n');
    expect(error?.message).toBe(message);
  });
});

describe('algorithmsFlag: the one --algorithms list of compare and bench', () => {
  it.each([
    { list: undefined, parsed: [...ALGORITHMS] },
    { list: 'gcra', parsed: ['gcra'] },
    { list: ' sliding-log , token-bucket ', parsed: ['sliding-log', 'token-bucket'] },
    { list: 'gcra,,fixed-window,', parsed: ['gcra', 'fixed-window'] },
    { list: 'gcra,gcra,token-bucket,gcra', parsed: ['gcra', 'token-bucket'] },
  ])('$list reads $parsed', ({ list, parsed }) => {
    expect(algorithmsFlag(list)).toEqual(parsed);
  });

  it.each([
    {
      list: '',
      code: 'INVALID_ARGUMENT',
      message: `--algorithms: expected a comma-separated list of ${ALGORITHMS.join(', ')}, got ""`,
    },
    {
      list: ' , ',
      code: 'INVALID_ARGUMENT',
      message: `--algorithms: expected a comma-separated list of ${ALGORITHMS.join(', ')}, got " , "`,
    },
    {
      list: 'gcra,leaky',
      code: 'UNKNOWN_ALGORITHM',
      message: `--algorithms: expected one of ${ALGORITHMS.join(', ')}, got "leaky"`,
    },
  ])('refuses $list with $code', ({ list, code, message }) => {
    const error = errorOf(() => algorithmsFlag(list));
    expect(error?.code).toBe(code);
    expect(error?.field).toBe('--algorithms');
    expect(error?.message).toBe(message);
  });
});
