import { formatDuration } from '../core/duration.js';
import { ALGORITHMS } from '../core/policy.js';
import { DEFAULT_LIMITER_TIMEOUT_MS } from '../metrics/limiter-timeout.js';
import { DEFAULT_MAX_ARRIVALS } from '../scenario/arrival-estimate.js';
import type { FlagSpecs } from './flag-spec.js';
import type { GateFlags, PolicyFlags } from './flags.js';

// The flags several commands take, each declared once: its name, its value and what it
// means. A command takes a group whole (`...POLICY_FLAGS`) or one flag of it, and may say in
// its own words what the flag does there (`{ ...POLICY_FLAGS.limit, description: ... }`),
// never give it another meaning. The output formats' flags come from the registry (outputs.ts).

/** The flags of the replays and benches that more than one command takes alike. */
export const SHARED_FLAGS = {
  algorithm: { value: '<name>', description: `the algorithm, one of ${ALGORITHMS.join(', ')}` },
  algorithms: { value: '<list>', description: `comma-separated, from ${ALGORITHMS.join(', ')} (default: all)` },
  limiterTimeout: {
    value: '<duration>',
    description: `how long one call into a --limiter module (loading, factory, each async consume) may take before the run stops, exit 2 (default ${formatDuration(DEFAULT_LIMITER_TIMEOUT_MS)})`,
  },
  trace: {
    value: '<file>',
    description: 'replay a recorded trace (CSV time_ms,key[,cost], JSON lines, or an access log)',
  },
  bucket: { value: '<duration>', description: 'timeline bucket width' },
  skipBadLines: { description: 'skip malformed or out-of-order trace lines instead of failing' },
  maxArrivals: {
    value: '<n>',
    description: `refuse a scenario expected to make more arrivals than this (default ${DEFAULT_MAX_ARRIVALS.toLocaleString('en-US')})`,
  },
  chart: { negate: true, description: 'no charts' },
  allowRemote: { description: 'allow a target that is not a loopback address' },
} satisfies FlagSpecs<{
  algorithm?: string;
  algorithms?: string;
  limiterTimeout?: string;
  trace?: string;
  bucket?: string;
  skipBadLines?: boolean;
  maxArrivals?: string;
  chart?: boolean;
  allowRemote?: boolean;
}>;

/** `--limit`, `--window`, `--burst`, `--seed`: the policy (and seed) a replay overrides its scenario's with. */
export const POLICY_FLAGS = {
  limit: { value: '<n>', description: 'policy limit (overrides the scenario)' },
  window: { value: '<duration>', description: 'policy window, e.g. 1s (overrides the scenario)' },
  burst: { value: '<n>', description: 'bucket capacity for token bucket and GCRA (overrides the scenario)' },
  seed: { value: '<n>', description: 'random seed (overrides the scenario)' },
} satisfies FlagSpecs<PolicyFlags>;

/** `--max-worst-window`, `--max-error`: the CI gates on a run's rows (exit 1 when one breaks). */
export const GATE_FLAGS = {
  maxWorstWindow: {
    value: '<ratio>',
    description: 'CI gate: exit 1 if any row admits more than ratio x the limit in one window, e.g. 1.0 or 2.0',
  },
  maxError: {
    value: '<percent>',
    description: 'CI gate: exit 1 if any row decides more than percent % of requests unlike the exact sliding log',
  },
} satisfies FlagSpecs<GateFlags>;

/** `--no-color` (false with it; colour also follows NO_COLOR, FORCE_COLOR and the terminal). */
export interface ColorFlags {
  color?: boolean;
}

/** `--no-color`. */
export const COLOR_FLAGS = {
  color: { negate: true, description: 'no colour' },
} satisfies FlagSpecs<ColorFlags>;

/** `--redis URL` and `--allow-remote`: the Redis server a command uses. */
export interface RedisTargetFlags {
  redis?: string;
  allowRemote?: boolean;
}

/** `--redis`, `--allow-remote`: one meaning everywhere, the Redis server the command talks to. */
export const REDIS_TARGET_FLAGS = {
  redis: {
    value: '<url>',
    description: 'the Redis server to use, e.g. redis://127.0.0.1:6380 (loopback only unless --allow-remote)',
  },
  allowRemote: { ...SHARED_FLAGS.allowRemote, description: 'allow a non-loopback Redis host' },
} satisfies FlagSpecs<RedisTargetFlags>;
