/**
 * One published claim about rate limiters, checked by a measurement. `reproduced` is true
 * or false for a judged claim, null for one only reported (a figure that depends on the
 * machine or the network) or skipped (its `reason` says why).
 */
export interface FidelityCase {
  /** Stable id (`design/token-bucket`, `cloudflare/mix`...). */
  id: string;
  /** What the source claims, in one sentence. */
  claim: string;
  /** Where the claim comes from. */
  source: string;
  /** The scenario, trace or mix that tests it. */
  scenario: string;
  /** The figure the source states (or the design predicts), as text. */
  expected: string;
  /** The figure measured, as text. */
  measured: string;
  verdict: Verdict;
  /** true when reproduced, false when not, null when only reported or skipped. */
  reproduced: boolean | null;
  /** The numbers behind `measured`, and anything else a reader may want (a table). */
  details: Record<string, unknown>;
}

/** `reproduced` / `not reproduced` for a judged claim; `reported` for a figure shown without a verdict; `skipped` with a reason. */
export type Verdict = 'reproduced' | 'not reproduced' | 'reported' | 'skipped';

/** What a case needs to run: the suite's seed, and a Redis URL for the one case that measures Redis. */
export interface FidelityContext {
  seed: number;
  redisUrl?: string;
  /** Allow a Redis that is not on this machine (`--allow-remote`). */
  allowRemote?: boolean;
}

/** A family of claims: runs and returns its cases (one or several rows). */
export interface FidelityCheck {
  /** The id prefix of its cases (`--only` picks checks by it). */
  readonly name: string;
  run(context: FidelityContext): Promise<FidelityCase[]>;
}

/** A judged case: the verdict from `ok`. */
export function judged(fields: Omit<FidelityCase, 'verdict' | 'reproduced'>, ok: boolean): FidelityCase {
  return { ...fields, verdict: ok ? 'reproduced' : 'not reproduced', reproduced: ok };
}

/** A figure reported without a verdict, or a case skipped (then `details.reason` says why). */
export function unjudged(
  fields: Omit<FidelityCase, 'verdict' | 'reproduced'>,
  verdict: 'reported' | 'skipped',
): FidelityCase {
  return { ...fields, verdict, reproduced: null };
}

/** `x` with `digits` decimals, trailing zeros kept (reports line up). */
export function fixed(x: number, digits = 2): string {
  return x.toFixed(digits);
}
