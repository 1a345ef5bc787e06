import type { FocusRecorder } from '../metrics/focus-recorder.js';
import { focusRecorders, sharedOracleView, type FocusPlan, type FocusView } from '../sim/focus.js';
import { isDecided } from './analysis.js';
import type { AttackRun } from './runner.js';
import { isAdmitted } from './shot.js';

/**
 * The keys of `plans` followed through an attack's decided requests, as `compare` follows
 * them through a replay: the endpoint is the one lane (named `endpoint`), judged against
 * the exact oracle of the policy (all its limits at once, when it lists several) on the
 * same requests at their sending times (wall ms), exactly as
 * analyzeAttack records them; Retry-After probes are left out, as there.
 */
export function followShots(
  run: AttackRun,
  policy: { limit: number; windowMs: number; limits?: readonly { limit: number; windowMs: number }[] },
  endpoint: string,
  plans: readonly FocusPlan[],
): FocusView[] {
  const recorders = focusRecorders(plans, policy.limits ?? [policy], 1);
  for (const shot of run.shots) {
    if (shot.probeOf !== undefined || !isDecided(shot)) continue;
    const t = Math.max(0, Math.round(shot.sentMs));
    for (const recorder of recorders) {
      recorder.offer(t, shot.key, 1);
      recorder.decide(0, isAdmitted(shot));
      recorder.commit();
    }
  }
  return plans.map((plan, i) => sharedOracleView(plan, (recorders[i] as FocusRecorder).result(), [endpoint]));
}
