import { formatDuration } from '../../core/duration.js';
import { RatelabError } from '../../core/errors.js';
import { readBuiltinIndex } from '../../scenario/builtin-index.js';
import { SCENARIO_TEMPLATE } from '../../scenario/template.js';
import { EXIT } from '../exit-codes.js';
import type { Command } from '../../report/io.js';

/** Options of `ratelab scenarios`: at most one of them. */
export interface ScenariosOptions {
  /** Print the scenario file's JSON Schema instead of the list. */
  schema?: boolean;
  /** Print a commented example scenario instead of the list. */
  template?: boolean;
}

/**
 * `ratelab scenarios`: lists the built-in scenarios, their policies and what each teaches;
 * with `--schema` prints the JSON Schema of a scenario file, with `--template` a commented
 * example (both to stdout, to redirect into a file). The list comes from the shipped index
 * and the schema's generator (zod) is loaded only for --schema: listing stays fast.
 */
export const scenariosCommand: Command<ScenariosOptions> = async (options, io) => {
  if (options.schema && options.template)
    throw new RatelabError('INVALID_ARGUMENT', '--schema and --template: pass one of them', { field: '--schema' });
  if (options.schema) {
    const { scenarioJsonSchemaText } = await import('../../scenario/json-schema.js');
    io.stdout.write(scenarioJsonSchemaText());
    return EXIT.OK;
  }
  if (options.template) {
    io.stdout.write(SCENARIO_TEMPLATE);
    return EXIT.OK;
  }
  const scenarios = readBuiltinIndex();
  const width = Math.max(...scenarios.map((s) => s.name.length));
  for (const s of scenarios) {
    // A composite lists every limit: `20/1s + 1000/1h`.
    const limits = (s.limits ?? [s.policy])
      .map((p) => `${p.limit}/${formatDuration(p.windowMs)}${p.burst === undefined ? '' : ` burst ${p.burst}`}`)
      .join(' + ');
    const policy = `${limits}, ${formatDuration(s.durationMs)}`;
    io.stdout.write(`${s.name.padEnd(width)}  ${s.description} [${policy}]\n`);
  }
  return EXIT.OK;
};
