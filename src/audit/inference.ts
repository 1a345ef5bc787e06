import type { Confidence, Family } from './audit-report.js';
import { bestFit, type ClientHistory, type Fit } from './fit.js';
import { describeHypothesis, type Hypothesis } from './models.js';

/** The family the probes' decisions point to, and how clearly. */
export interface Inference {
  family: Family;
  confidence: Confidence;
  /** The best hypothesis (its figures are the inferred policy), undefined when none was scored. */
  best: Fit | undefined;
  /** The best hypothesis of every other family, best first. */
  others: Fit[];
  evidence: string[];
}

/** Below this share of decisions reproduced, no family is named. */
const MIN_AGREEMENT = 0.8;

/** The name of a hypothesis's family as the report gives it (a sliding log is one family whatever it logs). */
function familyKey(h: Hypothesis): Family {
  return h.family;
}

/**
 * Scores every candidate against the decisions and names the family of the best, when it
 * reproduces at least {@link MIN_AGREEMENT} of them and another family does not do as
 * well; `unknown` otherwise, with both named in the evidence.
 */
export function inferFamily(candidates: readonly Hypothesis[], histories: readonly ClientHistory[]): Inference {
  const byFamily = new Map<Family, Hypothesis[]>();
  for (const h of candidates) {
    const list = byFamily.get(familyKey(h));
    if (list) list.push(h);
    else byFamily.set(familyKey(h), [h]);
  }
  const fits = [...byFamily.values()]
    .map((list) => bestFit(list, histories))
    .filter((fit): fit is Fit => fit !== undefined)
    .sort((a, b) => b.matches - a.matches);
  const [best, ...others] = fits;
  if (!best || best.total === 0) {
    return { family: 'unknown', confidence: 'low', best: undefined, others: [], evidence: ['no decisions to score'] };
  }
  const evidence = [reproduces(best), ...others.slice(0, 2).map(reproduces)];
  const agreement = best.matches / best.total;
  const second = others[0];
  const missBest = best.total - best.matches;
  const missSecond = second ? second.total - second.matches : Infinity;
  if (agreement < MIN_AGREEMENT) return { family: 'unknown', confidence: 'low', best, others, evidence };
  if (second && missSecond === missBest) {
    evidence.push(`${second.hypothesis.family} and ${best.hypothesis.family} decide alike on every request sent`);
    return { family: 'unknown', confidence: 'low', best, others, evidence };
  }
  return {
    family: best.hypothesis.family,
    confidence: confidenceOf(missBest, missSecond, agreement),
    best,
    others,
    evidence,
  };
}

function confidenceOf(missBest: number, missSecond: number, agreement: number): Confidence {
  if (agreement >= 0.98 && missSecond >= Math.max(3 * missBest, missBest + 5)) return 'high';
  if (missSecond >= missBest + 3) return 'medium';
  return 'low';
}

function reproduces(fit: Fit): string {
  return `${describeHypothesis(fit.hypothesis)} reproduces ${fit.matches} of ${fit.total} decisions`;
}
