import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bufferIO } from '../../src/report/io.js';
import { run } from '../../src/cli/main.js';
import { BUILTIN_DIR } from '../../src/scenario/builtins.js';
import { SCENARIO_SCHEMA_FILE, scenarioJsonSchema, scenarioJsonSchemaText } from '../../src/scenario/json-schema.js';
import { parseScenario } from '../../src/scenario/load-scenario.js';
import { SCENARIO_TEMPLATE } from '../../src/scenario/template.js';

const shipped = () => readFileSync(new URL(`../../${SCENARIO_SCHEMA_FILE}`, import.meta.url), 'utf8');

describe('the scenario JSON Schema', () => {
  it('the shipped file is what the zod schema generates now (run `npm run schema` after changing the format)', () => {
    expect(shipped()).toBe(scenarioJsonSchemaText());
  });

  it('is draft 2020-12 and describes what a scenario file takes', () => {
    const schema = scenarioJsonSchema() as {
      $schema: string;
      required: string[];
      additionalProperties: boolean;
      properties: { sources: { items: { oneOf: { properties: { kind: { const: string } } }[] } } };
    };
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.required).toEqual(['name', 'description', 'policy', 'duration', 'seed', 'sources']);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.sources.items.oneOf.map((source) => source.properties.kind.const)).toEqual([
      'steady',
      'poisson',
      'burst',
      'onoff',
      'retry',
    ]);
  });

  it('is what `ratelab scenarios --schema` prints', async () => {
    const io = bufferIO();
    expect(await run(['scenarios', '--schema'], io)).toBe(0);
    expect(io.out()).toBe(shipped());
  });

  it('sits beside the built-ins, which point their language-server line at it', () => {
    expect(new URL(`../../${SCENARIO_SCHEMA_FILE}`, import.meta.url).pathname.startsWith(BUILTIN_DIR)).toBe(true);
    expect(readFileSync(new URL('../../scenarios/13-retry-backoff.yaml', import.meta.url), 'utf8').split('\n')[0]).toBe(
      '# yaml-language-server: $schema=./scenario.schema.json',
    );
  });
});

describe('the scenario template', () => {
  it('loads and validates as printed, with every kind of source, labels, a backoff and adaptive clients', () => {
    const scenario = parseScenario(SCENARIO_TEMPLATE, 'template.yaml');
    expect(scenario.sources.map((source) => source.kind)).toEqual([
      'steady',
      'burst',
      'onoff',
      'retry',
      'retry',
      'retry',
    ]);
    expect(scenario.sources.map((source) => source.label)).toEqual([
      'user',
      'attacker',
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(scenario.sources[4]).toMatchObject({
      honourRetryAfter: false,
      backoff: { baseMs: 100, capMs: 10_000, jitter: 'full' },
    });
    expect(scenario.sources[5]).toMatchObject({ client: 'adaptive' });
  });

  it('starts with the yaml-language-server line pointing at the installed package schema', () => {
    expect(SCENARIO_TEMPLATE.split('\n')[0]).toBe(
      '# yaml-language-server: $schema=./node_modules/ratelab/scenarios/scenario.schema.json',
    );
  });

  it('is what `ratelab scenarios --template` prints', async () => {
    const io = bufferIO();
    expect(await run(['scenarios', '--template'], io)).toBe(0);
    expect(io.out()).toBe(SCENARIO_TEMPLATE);
  });

  it('`--schema` and `--template` together are refused (exit 2)', async () => {
    const io = bufferIO();
    expect(await run(['scenarios', '--schema', '--template'], io)).toBe(2);
    expect(io.err()).toBe('ratelab: --schema and --template: pass one of them\n');
    expect(io.out()).toBe('');
  });
});
