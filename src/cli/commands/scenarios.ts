import { formatDuration } from '../../duration.js';
import { builtinScenarios } from '../../scenario/builtins.js';
import { EXIT } from '../exit-codes.js';
import type { Command } from '../io.js';

/** `ratelab scenarios`: lists the built-in scenarios, their policies and what each teaches. */
export const scenariosCommand: Command<Record<string, never>> = async (_options, io) => {
  const scenarios = builtinScenarios();
  const width = Math.max(...scenarios.map((s) => s.name.length));
  for (const s of scenarios) {
    const policy = `${s.policy.limit}/${formatDuration(s.policy.windowMs)}${s.policy.burst === undefined ? '' : ` burst ${s.policy.burst}`}, ${formatDuration(s.durationMs)}`;
    io.stdout.write(`${s.name.padEnd(width)}  ${s.description} [${policy}]\n`);
  }
  return EXIT.OK;
};
