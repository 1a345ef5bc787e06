import { parseScenario } from '../../src/scenario/load-scenario.js';
import type { Scenario } from '../../src/scenario/scenario.js';
import type { FleetOptions } from '../../src/sim/distributed/fleet-options.js';

/** A fleet with the CLI's defaults, changed by `overrides`. */
export function fleet(overrides: Partial<FleetOptions> = {}): FleetOptions {
  return {
    nodes: 4,
    strategy: 'central',
    failMode: 'open',
    balance: 'even',
    algorithm: 'sliding-log',
    syncMs: 100,
    rttMs: 1,
    timeoutMs: 50,
    ...overrides,
  };
}

/** A one-key scenario from its `sources:` YAML lines, limit 100 per 1 s. */
export function scenario(duration: string, sources: string, seed = 1): Scenario {
  return parseScenario(
    `name: test\ndescription: test traffic\npolicy: { limit: 100, window: 1s }\nduration: ${duration}\nseed: ${seed}\nbucket: 500ms\nsources:\n${sources}`,
    'test.yaml',
  );
}

export const steady = (rate: number) => `  - kind: steady\n    keys: k\n    rate: ${rate}/s\n`;
export const poisson = (rate: number, keys = 'k') => `  - kind: poisson\n    keys: ${keys}\n    rate: ${rate}/s\n`;
