import type { Algorithm } from '../core/policy.js';
import type { Balance } from '../sim/distributed/fleet-options.js';

// The defaults that help shows, apart from the commands that apply them: building
// `ratelab --help` must load no command module (and none of the lab behind it).

/** Defaults of `ratelab attack`. */
export const ATTACK_DEFAULTS = {
  speed: 1,
  keyHeader: 'X-API-Key',
  connections: 16,
  maxRequests: 10_000,
  maxTime: '5m',
  timeout: '5s',
} as const;

/** Defaults of `ratelab serve`. */
export const SERVE_DEFAULTS = {
  port: 8080,
  host: '127.0.0.1',
  algorithm: 'token-bucket',
  limit: 10,
  window: '10s',
} as const;

/** The built-in scenario `ratelab distributed` runs when given none. */
export const DEFAULT_DISTRIBUTED_SCENARIO = 'fleet';

/** Defaults of the fleet of `ratelab distributed`: small enough to read, large enough to show each design's failure. */
export const DISTRIBUTED_DEFAULTS = {
  nodes: 4,
  syncMs: 100,
  rttMs: 1,
  timeoutMs: 50,
  balance: 'even' as Balance,
  algorithm: 'sliding-log' as Algorithm,
};
