import type { Command } from '../../report/io.js';
import { terminalWidth } from '../terminal-width.js';
import type { FidelityCheck } from '../../fidelity/case.js';
import { runFidelity } from '../../fidelity/suite.js';
import { openRedis, parseRedisTarget } from '../../redis/client.js';
import { fidelityCsv } from '../../report/data/fidelity-csv.js';
import { fidelityJson } from '../../report/data/fidelity-json.js';
import { fidelityTable } from '../../report/text/fidelity-report.js';
import { EXIT } from '../exit-codes.js';
import { usage, wholeNumberFlag } from '../flags.js';
import type { RedisTargetFlags } from '../flag-groups.js';
import { checkOutputs, writeFormats, type OutputTargets } from '../outputs.js';

/** Options of `ratelab fidelity`: its flags, text as commander hands them over. */
export interface FidelityOptions extends RedisTargetFlags, OutputTargets<'csv' | 'json'> {
  seed?: string;
  only?: string;
  /** Not a flag: replaces the shipped checks (tests inject a claim that fails). */
  checks?: readonly FidelityCheck[];
}

/**
 * `ratelab fidelity`: runs the shipped suite of published claims, each next to its
 * measurement, prints the table and optionally CSV and JSON; exits 1 (the gate's code)
 * when a judged claim is not reproduced. Flags and outputs are checked before anything runs,
 * and `--redis` is reached first: a Redis that does not answer fails at once (exit 3, one
 * line), not after every other check has run.
 */
export const fidelityCommand: Command<FidelityOptions> = async (flags, io) => {
  const seed = flags.seed === undefined ? undefined : wholeNumberFlag(flags.seed, '--seed', 0, 0xffff_ffff);
  const only = flags.only
    ?.split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (only?.length === 0)
    throw usage('--only', `expected a comma-separated list of check names, got ${JSON.stringify(flags.only)}`);
  if (flags.redis !== undefined) parseRedisTarget(flags.redis, flags.allowRemote === true);
  const toStdout = checkOutputs(flags, io.cwd);
  if (flags.redis !== undefined)
    (await openRedis(flags.redis, { allowRemote: flags.allowRemote === true })).disconnect();
  const report = await runFidelity({
    ...(seed === undefined ? {} : { seed }),
    ...(flags.redis === undefined ? {} : { redisUrl: flags.redis, allowRemote: flags.allowRemote === true }),
    ...(only === undefined ? {} : { only }),
    ...(flags.checks === undefined ? {} : { checks: flags.checks }),
  });
  if (!toStdout) io.stdout.write(fidelityTable(report, terminalWidth(io)));
  await writeFormats(flags, { csv: () => fidelityCsv(report), json: () => fidelityJson(report) }, io);
  return report.failed === 0 ? EXIT.OK : EXIT.CHECK_FAILED;
};
