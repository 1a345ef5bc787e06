import type { ComparisonRow } from '../sim/comparison.js';
import { checkGates, type Gates } from '../sim/gates.js';
import { EXIT } from './exit-codes.js';
import type { CommandIO } from '../report/io.js';

/**
 * Checks every row against the gates given (none: nothing to check, EXIT.OK); names each
 * row that breaks one on stderr (`ratelab: gate: ...`) and returns EXIT.CHECK_FAILED, else
 * says all passed. Shared by `compare` and `attack`, so a CI log reads the same for both.
 */
export function reportGates(rows: readonly ComparisonRow[], gates: Gates, io: CommandIO): number {
  if (gates.maxWorstWindow === undefined && gates.maxErrorPercent === undefined) return EXIT.OK;
  const violations = checkGates(rows, gates);
  for (const violation of violations) io.stderr.write(`ratelab: gate: ${violation.message}\n`);
  if (violations.length > 0) return EXIT.CHECK_FAILED;
  io.stderr.write(`ratelab: gate: ${rows.length === 1 ? 'the row passes' : `all ${rows.length} rows pass`}\n`);
  return EXIT.OK;
}
