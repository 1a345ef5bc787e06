import { resolve } from 'node:path';
import { formatDuration } from '../../core/duration.js';
import { loadTiers } from '../../tiers/load-tiers.js';
import { EXIT } from '../exit-codes.js';
import type { Command } from '../../report/io.js';

/** `ratelab check-tiers FILE`: validates a tiers file and summarises it. */
export const checkTiersCommand: Command<{ file: string }> = async (options, io) => {
  const config = loadTiers(resolve(io.cwd, options.file), options.file);
  for (const [name, tier] of Object.entries(config.tiers)) {
    const what =
      tier === 'unlimited'
        ? 'unlimited'
        : `${tier.algorithm}, ${tier.policy.limit} per ${formatDuration(tier.policy.windowMs)}${tier.policy.burst === undefined ? '' : `, burst ${tier.policy.burst}`}`;
    const clients = Object.values(config.clients).filter((t) => t === name).length;
    io.stdout.write(
      `${name}${name === config.default ? ' (default)' : ''}: ${what}; ${clients} client${clients === 1 ? '' : 's'} assigned\n`,
    );
  }
  return EXIT.OK;
};
