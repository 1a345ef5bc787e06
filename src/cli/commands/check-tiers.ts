import { resolve } from 'node:path';
import { formatDuration } from '../../core/duration.js';
import { checkLimitList, defaultLimitName } from '../../core/limit-list.js';
import type { NamedLimits } from '../../core/policy.js';
import { loadTiers } from '../../tiers/load-tiers.js';
import type { TierMode, TierSpec, TiersConfig } from '../../tiers/types.js';
import { EXIT } from '../exit-codes.js';
import { checkOutputs, writeFormats, type OutputTargets } from '../outputs.js';
import type { Command } from '../../report/io.js';

/** Options of `ratelab check-tiers`: the file, and `--json` (the summary as data). */
export interface CheckTiersOptions extends OutputTargets<'json'> {
  file: string;
}

/**
 * `ratelab check-tiers FILE`: validates a tiers file and summarises it, one line per tier
 * (a tier of several limits lists them joined by `+`; a tier in shadow says so beside its
 * name), or as JSON with `--json`.
 */
export const checkTiersCommand: Command<CheckTiersOptions> = async (options, io) => {
  const toStdout = checkOutputs(options, io.cwd);
  const config = loadTiers(resolve(io.cwd, options.file), options.file);
  const summary = summarise(config);
  if (!toStdout) {
    for (const tier of summary) {
      const what = tier.limits === 'unlimited' ? 'unlimited' : describeLimits(tier.limits);
      const clients = tier.clients;
      const tags = [...(tier.default ? ['default'] : []), ...(tier.mode === 'shadow' ? ['shadow'] : [])];
      io.stdout.write(
        `${tier.name}${tags.length > 0 ? ` (${tags.join(', ')})` : ''}: ${what}; ${clients} client${clients === 1 ? '' : 's'} assigned\n`,
      );
    }
  }
  await writeFormats(options, { json: () => `${JSON.stringify({ tiers: summary }, null, 2)}\n` }, io);
  return EXIT.OK;
};

/** One tier as summarised: its mode, its limits (windows in ms, capacity resolved) and how many clients the file assigns it. */
interface TierSummary {
  name: string;
  default: boolean;
  /** `shadow`: decides and counts but lets every request through; an unlimited tier is `enforce`. */
  mode: TierMode;
  limits: 'unlimited' | NamedLimits[];
  clients: number;
}

function summarise(config: TiersConfig): TierSummary[] {
  return Object.entries(config.tiers).map(([name, tier]) => ({
    name,
    default: name === config.default,
    mode: tier === 'unlimited' ? 'enforce' : (tier.mode ?? 'enforce'),
    limits: limitsOf(tier),
    clients: Object.values(config.clients).filter((t) => t === name).length,
  }));
}

/** The tier's limits as the limiter will hold them (names defaulted to the window). */
function limitsOf(tier: TierSpec): 'unlimited' | NamedLimits[] {
  return tier === 'unlimited' ? 'unlimited' : checkLimitList(tier.algorithm, tier.policy);
}

/**
 * `token-bucket, 10 per 1s, burst 20` for one limit; several as
 * `token-bucket 10/1s + sliding-log 10000/1d (daily)`, a name shown when it is not the window's.
 */
function describeLimits(limits: readonly NamedLimits[]): string {
  if (limits.length === 1) {
    const [only] = limits as [NamedLimits];
    const burst = only.capacity === only.limit ? '' : `, burst ${only.capacity}`;
    return `${only.algorithm}, ${only.limit} per ${formatDuration(only.windowMs)}${burst}`;
  }
  return limits
    .map((entry) => {
      const burst = entry.capacity === entry.limit ? '' : ` burst ${entry.capacity}`;
      const name = entry.name === defaultLimitName(entry.windowMs) ? '' : ` (${entry.name})`;
      return `${entry.algorithm} ${entry.limit}/${formatDuration(entry.windowMs)}${burst}${name}`;
    })
    .join(' + ');
}
