import { RatelabError } from '../core/errors.js';
import { bucketBoundCheck } from './bucket-bound.js';
import type { FidelityCase, FidelityCheck, FidelityContext } from './case.js';
import { cloudflareCheck } from './cloudflare-check.js';
import { designCheck } from './design-table.js';
import { edgeChecks } from './edges.js';
import { gcraCheck } from './gcra-equivalence.js';
import { nodesCheck } from './nodes.js';
import { redisCheck } from './redis-latency.js';

/** The seed of the shipped suite: the figures in the README are this seed's. */
export const FIDELITY_SEED = 17;

/** The shipped checks, in the order the table lists them. */
export function fidelityChecks(): FidelityCheck[] {
  return [designCheck, edgeChecks, bucketBoundCheck, gcraCheck(), nodesCheck, cloudflareCheck(), redisCheck];
}

/** What `ratelab fidelity` measured. */
export interface FidelityReport {
  seed: number;
  cases: FidelityCase[];
  /** Cases whose claim was judged and not reproduced. */
  failed: number;
}

/** Options of {@link runFidelity}. */
export interface FidelityOptions extends Partial<FidelityContext> {
  /** Run only checks whose name is listed (default all). */
  only?: readonly string[];
  /** Replaces the shipped checks (tests inject a broken one). */
  checks?: readonly FidelityCheck[];
}

/**
 * Runs the suite: every check in turn, deterministic for a seed (the Redis case aside,
 * which only reports). Throws `INVALID_ARGUMENT` for a name in `only` that no check has.
 */
export async function runFidelity(options: FidelityOptions = {}): Promise<FidelityReport> {
  const context: FidelityContext = {
    seed: options.seed ?? FIDELITY_SEED,
    ...(options.redisUrl === undefined
      ? {}
      : { redisUrl: options.redisUrl, allowRemote: options.allowRemote ?? false }),
  };
  const checks = selected(options.checks ?? fidelityChecks(), options.only);
  const cases: FidelityCase[] = [];
  for (const check of checks) cases.push(...(await check.run(context)));
  return { seed: context.seed, cases, failed: cases.filter((c) => c.reproduced === false).length };
}

function selected(checks: readonly FidelityCheck[], only: readonly string[] | undefined): readonly FidelityCheck[] {
  if (only === undefined) return checks;
  const names = checks.map((c) => c.name);
  const unknown = only.find((name) => !names.includes(name));
  if (unknown !== undefined)
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `--only: expected names from ${names.join(', ')}, got ${JSON.stringify(unknown)}`,
      { field: '--only' },
    );
  return checks.filter((c) => only.includes(c.name));
}
