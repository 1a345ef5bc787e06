// The shipped JSON Schema of tiers files (for editors): generated from the zod schema, so it
// cannot drift from what ratelab accepts, and shipped in the package.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MAX_LIMITS } from '../../src/core/limit-list.js';
import { ALGORITHMS } from '../../src/core/policy.js';
import { TIERS_SCHEMA_FILE, tiersJsonSchema, tiersJsonSchemaText } from '../../src/tiers/json-schema.js';

const root = new URL('../../', import.meta.url);

interface Schema {
  $schema: string;
  required: string[];
  properties: {
    tiers: {
      additionalProperties: {
        anyOf: [
          { const: string },
          {
            properties: Record<string, unknown> & {
              limits: {
                minItems: number;
                maxItems: number;
                items: { required: string[]; properties: { algorithm: { enum: string[] }; name: { pattern: string } } };
              };
            };
            additionalProperties: boolean;
          },
        ];
      };
    };
  };
}

describe('the tiers JSON Schema', () => {
  it('the shipped file is what the zod schema generates now (run `npm run schema` after changing the format)', () => {
    expect(readFileSync(new URL(TIERS_SCHEMA_FILE, root), 'utf8')).toBe(tiersJsonSchemaText());
  });

  it('is in the package, beside the scenario schema', () => {
    const files = (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { files: string[] }).files;
    expect(files).toContain(TIERS_SCHEMA_FILE);
  });

  it('describes a tier as "unlimited", the single fields, or a list of 1 to 16 named limits', () => {
    const schema = tiersJsonSchema() as unknown as Schema;
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.required).toEqual(['tiers', 'default']);
    const [unlimited, limited] = schema.properties.tiers.additionalProperties.anyOf;
    expect(unlimited.const).toBe('unlimited');
    expect(Object.keys(limited.properties)).toEqual(['algorithm', 'limit', 'window', 'burst', 'limits', 'mode']);
    expect(limited.additionalProperties).toBe(false);
    const { limits } = limited.properties;
    expect([limits.minItems, limits.maxItems]).toEqual([1, MAX_LIMITS]);
    expect(limits.items.required).toEqual(['limit', 'window']);
    expect(limits.items.properties.algorithm.enum).toEqual([...ALGORITHMS]);
    const name = new RegExp(limits.items.properties.name.pattern);
    expect(['burst', 'per-day.v2', 'a:b_c'].every((ok) => name.test(ok))).toBe(true);
    expect(['', 'two words', 'x'.repeat(65), 'é'].some((bad) => name.test(bad))).toBe(false);
  });
});
