import { expect } from 'vitest';
import { RatelabError, type RatelabErrorCode } from '../../src/index.js';

/** Runs `fn`, expecting a RatelabError with `code` whose field and message name `field`; returns it. */
export function expectRatelabError(fn: () => unknown, code: RatelabErrorCode, field?: string): RatelabError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(RatelabError);
  const error = caught as RatelabError;
  expect(error.code).toBe(code);
  if (field !== undefined) {
    expect(error.field).toBe(field);
    expect(error.message).toContain(field);
  }
  return error;
}

/** The code of the RatelabError `fn` throws, or undefined when it returns; any other error is rethrown. */
export function errorCode(fn: () => unknown): RatelabErrorCode | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof RatelabError) return error.code;
    throw error;
  }
  return undefined;
}
