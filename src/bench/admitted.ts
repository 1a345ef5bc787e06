import type { BenchRun, Figure } from './bench-run.js';

/**
 * How far a subject's admitted share may be from the reference's and still count as the same
 * outcome: half a percentage point (the table prints whole percents).
 */
const SAME_SHARE = 0.005;

/**
 * The speed figures whose admitted share differs from the reference's on the same workload.
 * A subject that admits a different share does other work (a denial costs otherwise than an
 * admission), so its ratio to the reference is not a like-for-like comparison.
 */
export function admittedDiffers(run: BenchRun): Figure[] {
  const reference = new Map(
    run.figures
      .filter((f) => f.subject === 'reference' && f.admitted !== undefined)
      .map((f) => [f.workload, f.admitted as number]),
  );
  return run.figures.filter((f) => {
    const theirs = reference.get(f.workload);
    return (
      f.subject !== 'reference' &&
      f.admitted !== undefined &&
      theirs !== undefined &&
      Math.abs(f.admitted - theirs) > SAME_SHARE
    );
  });
}
