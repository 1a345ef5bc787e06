import { parseYamlConfig, readText } from '../config/yaml-config.js';
import { RatelabError } from '../core/errors.js';
import type { LimitSpec, Policy, PolicyInput } from '../core/policy.js';
import { policyHolder, type KeySpec, type RetrySourceSpec, type Scenario, type SourceSpec } from './scenario.js';
import { validateScenario, type ScenarioFile, type SourceFile } from './schema.js';

/** Timelines aim for about this many buckets when a scenario does not set `bucket`. */
const DEFAULT_BUCKETS = 60;
/** The key of a source that names none. */
const DEFAULT_KEY = 'client';

/**
 * Reads and validates a scenario file (YAML). Throws `FILE_NOT_FOUND` / `FILE_UNREADABLE`,
 * or `INVALID_SCENARIO` whose `problems` list every problem as
 * `file:line: sources.1.rate: expected a rate such as ..., got -5`.
 */
export function loadScenario(path: string, label = path): Scenario {
  return parseScenario(readText(path, label), label);
}

/** Validates the text of a scenario; `source` names it in messages. */
export function parseScenario(text: string, source = 'scenario'): Scenario {
  const file = parseYamlConfig(text, source, 'INVALID_SCENARIO', validateScenario);
  return {
    name: file.name,
    description: file.description,
    ...policyHolder(toPolicy(file.policy)),
    durationMs: file.duration,
    seed: file.seed,
    bucketMs: file.bucket ?? Math.max(1, Math.ceil(file.duration / DEFAULT_BUCKETS)),
    sources: file.sources.map((item) => toSource(item, file)),
    file: source,
  };
}

/** Overrides of a scenario's policy and seed (the CLI's `--policy`, or `--limit --window --burst`, and `--seed`). */
export interface ScenarioOverrides {
  /** `--policy`: the whole policy, one limit or a composite's list (then limit, windowMs and burst are not given). */
  policy?: PolicyInput;
  limit?: number;
  windowMs?: number;
  burst?: number;
  seed?: number;
}

/**
 * `scenario` with the given fields replaced; the others kept. `limit`, `windowMs` and `burst`
 * change a single policy; a composite scenario takes a new policy only whole (`policy`),
 * `INVALID_ARGUMENT` naming the flag otherwise, and then keeps its own limits as `watched`.
 */
export function withOverrides(scenario: Scenario, overrides: ScenarioOverrides): Scenario {
  const seed = overrides.seed ?? scenario.seed;
  if (overrides.policy !== undefined) {
    const holder = policyHolder(overrides.policy);
    const next: Scenario = { ...scenario, policy: holder.policy, seed };
    if (holder.limits === undefined) delete next.limits;
    else next.limits = holder.limits;
    if (scenario.limits !== undefined) next.watched = scenario.limits;
    return next;
  }
  if (scenario.limits !== undefined) {
    const flag = overrides.limit !== undefined ? '--limit' : overrides.windowMs !== undefined ? '--window' : '--burst';
    if (overrides.limit !== undefined || overrides.windowMs !== undefined || overrides.burst !== undefined)
      throw new RatelabError(
        'INVALID_ARGUMENT',
        `${flag}: ${scenario.name} has several limits (${scenario.limits.length}); replace them all with --policy LIMIT/WINDOW,...`,
        { field: flag },
      );
    return { ...scenario, seed };
  }
  const policy: Policy = { ...scenario.policy };
  if (overrides.limit !== undefined) policy.limit = overrides.limit;
  if (overrides.windowMs !== undefined) policy.windowMs = overrides.windowMs;
  if (overrides.burst !== undefined) policy.burst = overrides.burst;
  return { ...scenario, policy, seed };
}

function toPolicy(policy: ScenarioFile['policy']): Policy | LimitSpec[] {
  if (!Array.isArray(policy)) return toLimit(policy);
  return policy.map((entry) => (entry.name === undefined ? toLimit(entry) : { ...toLimit(entry), name: entry.name }));
}

function toLimit(entry: { limit: number; window: number; burst?: number }): Policy {
  return entry.burst === undefined
    ? { limit: entry.limit, windowMs: entry.window }
    : { limit: entry.limit, windowMs: entry.window, burst: entry.burst };
}

function toKeys(keys: SourceFile['keys']): KeySpec {
  if (keys === undefined) return { count: 1, prefix: DEFAULT_KEY, pick: 'round-robin', exponent: 1 };
  if (typeof keys === 'string') return { count: 1, prefix: keys, pick: 'round-robin', exponent: 1 };
  return { count: keys.count, prefix: keys.prefix ?? 'key:', pick: keys.pick, exponent: keys.exponent };
}

function toSource(item: SourceFile, file: ScenarioFile): SourceSpec {
  const base =
    item.label === undefined
      ? { keys: toKeys(item.keys), cost: item.cost }
      : { keys: toKeys(item.keys), cost: item.cost, label: item.label };
  switch (item.kind) {
    case 'steady':
    case 'poisson':
      return { ...base, kind: item.kind, startMs: item.start, endMs: item.end ?? file.duration, ratePerMs: item.rate };
    case 'burst': {
      const everyMs = item.every ?? file.duration;
      const fits = Math.floor((file.duration - 1 - item.at) / everyMs) + 1;
      const times = item.times ?? (item.every === undefined ? 1 : fits);
      return { ...base, kind: 'burst', atMs: item.at, count: item.count, spreadMs: item.spread, everyMs, times };
    }
    case 'onoff':
      return {
        ...base,
        kind: 'onoff',
        startMs: item.start,
        endMs: item.end ?? file.duration,
        ratePerMs: item.rate,
        on: { alpha: item.on.alpha, minMs: item.on.min },
        off: { alpha: item.off.alpha, minMs: item.off.min },
      };
    case 'retry': {
      const retry: RetrySourceSpec = {
        ...base,
        kind: 'retry',
        startMs: item.start,
        endMs: item.end ?? file.duration,
        clients: item.clients,
        rampMs: item.ramp,
        thinkMs: item.think,
        jitter: item.jitter,
        maxRetries: item.maxRetries,
        honourRetryAfter: item.honourRetryAfter,
      };
      if (item.backoff !== undefined)
        retry.backoff = { baseMs: item.backoff.base, capMs: item.backoff.cap, jitter: item.backoff.jitter };
      if (item.throttle !== undefined) retry.throttle = { limit: item.throttle.limit, windowMs: item.throttle.window };
      if (item.client !== undefined) retry.client = item.client;
      return retry;
    }
  }
}
