import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BUILTIN_INDEX_FILE, builtinIndexText, readBuiltinIndex } from '../../src/scenario/builtin-index.js';
import { builtinScenarios } from '../../src/scenario/builtins.js';

describe('the index of the built-in scenarios (what `ratelab scenarios` lists without loading them)', () => {
  it('the shipped file is what the YAML files say now (run `npm run scenario-index` after changing a built-in)', () => {
    expect(readFileSync(new URL(`../../${BUILTIN_INDEX_FILE}`, import.meta.url), 'utf8')).toBe(
      builtinIndexText(builtinScenarios()),
    );
  });

  it('lists every built-in, in file order, with its policy and duration', () => {
    const scenarios = builtinScenarios();
    const index = readBuiltinIndex();
    expect(index.map((entry) => entry.name)).toEqual(scenarios.map((s) => s.name));
    expect(index.find((entry) => entry.name === 'zipf-many-keys')).toEqual({
      file: '09-zipf-many-keys.yaml',
      name: 'zipf-many-keys',
      description: expect.stringContaining('100,000 keys') as string,
      policy: { limit: 100, windowMs: 1000 },
      durationMs: 4000,
    });
  });
});
