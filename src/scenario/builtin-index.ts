import { readFileSync } from 'node:fs';
import type { LimitSpec, Policy } from '../core/policy.js';
import type { Scenario } from './scenario.js';

/** The index of the built-ins, shipped beside them (written by `npm run scenario-index`). */
export const BUILTIN_INDEX_FILE = 'scenarios/index.json';

/** What `ratelab scenarios` lists of a built-in, without loading (and validating) its YAML. */
export interface BuiltinSummary {
  /** Its file name in scenarios/. */
  file: string;
  name: string;
  description: string;
  policy: Policy;
  /** A composite's limits, when it has several. */
  limits?: readonly LimitSpec[];
  durationMs: number;
}

/**
 * The built-ins' summaries, in file order, from the shipped index: one small JSON file
 * read instead of every YAML file parsed and checked with yaml and zod, which cost more
 * than all the rest of `ratelab scenarios`. test/lab/builtin-index.test.ts fails while
 * the index differs from what the YAML files say.
 */
export function readBuiltinIndex(): BuiltinSummary[] {
  // Two levels up from src/scenario and dist/scenario alike (the CLI runs the per-file build).
  return JSON.parse(readFileSync(new URL(`../../${BUILTIN_INDEX_FILE}`, import.meta.url), 'utf8')) as BuiltinSummary[];
}

/** The index of `scenarios` (loaded from their files), as {@link readBuiltinIndex} returns it. */
export function builtinIndexOf(scenarios: readonly Scenario[]): BuiltinSummary[] {
  return scenarios.map((s) => ({
    file: s.file.split('/').pop() as string,
    name: s.name,
    description: s.description,
    policy: s.policy,
    ...(s.limits === undefined ? {} : { limits: s.limits }),
    durationMs: s.durationMs,
  }));
}

/** The index file's text for `scenarios`. */
export function builtinIndexText(scenarios: readonly Scenario[]): string {
  return `${JSON.stringify(builtinIndexOf(scenarios), null, 2)}\n`;
}
