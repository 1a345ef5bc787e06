import { ManualClock } from '../core/clock.js';
import { createLimiter } from '../memory/limiter.js';
import { SWEEP_KEYS, slopeOf, sweepMemory, type MemorySweep } from '../metrics/memory-sweep.js';
import { ALGORITHMS, hasBucket, type Algorithm } from '../core/policy.js';
import { fixed, judged, type FidelityCase, type FidelityCheck } from './case.js';
import { replayScenario, shippedScenario } from './edges.js';

/** Limits at which memory per full key is measured. */
export const MEMORY_LIMITS = [10, 100, 1000] as const;
/** The burst column's policy: a bucket capacity below the limit, so the two differ. */
const BURST_POLICY = { limit: 100, windowMs: 1000, burst: 20 };

/** What the design table states per algorithm: exact or approximate, memory O(1) or O(limit), burst b or limit in 1 ms. */
interface Design {
  exact: boolean;
  /** Bytes per unit of the limit: 0 for O(1), 8 for the log's one timestamp per unit. */
  slope: number;
}

const DESIGN: Record<Algorithm, Design> = {
  'token-bucket': { exact: false, slope: 0 },
  gcra: { exact: false, slope: 0 },
  'sliding-log': { exact: true, slope: 8 },
  'sliding-counter': { exact: false, slope: 0 },
  'fixed-window': { exact: false, slope: 0 },
};

/** Bytes per full key at each of {@link MEMORY_LIMITS} and the slope, per algorithm (see sweepMemory). */
function memorySweep(): Promise<MemorySweep> {
  return sweepMemory({ algorithms: ALGORITHMS, limits: MEMORY_LIMITS, windowMs: 60_000 });
}

/** Most units admitted within one millisecond from a full state (a fresh key): the burst column. */
export function burstInOneMs(algorithm: Algorithm): number {
  const clock = new ManualClock(5_000);
  const limiter = createLimiter(algorithm, BURST_POLICY, { clock });
  let admitted = 0;
  while (admitted <= 10 * BURST_POLICY.limit && limiter.allow('k')) admitted++;
  return admitted;
}

/**
 * Claim 1, the algorithms' design table (error, memory, burst) measured: per algorithm, decision error against the
 * exact oracle on a realistic mix (zipf-many-keys) and an adversarial one
 * (sliding-counter-worst: a full quota at a window's end, then steady pressure); bytes per full key at limits 10, 100 and 1,000 with the slope; the most
 * admitted in 1 ms from a full state. Judged: the log exact and the others not (an error
 * on the adversarial mix), the memory slope (O(limit)
 * for the log, flat for the others: ratios, never absolute bytes, which vary by machine)
 * and the burst (b for the buckets, the limit for the windows).
 */
export const designCheck: FidelityCheck = {
  name: 'design',
  async run() {
    const memory = memorySweep();
    const realistic = await replayScenario(shippedScenario('zipf-many-keys'), ALGORITHMS);
    const adversarial = await replayScenario(shippedScenario('sliding-counter-worst'), ALGORITHMS);
    const sweep = await memory;
    return ALGORITHMS.map((algorithm, i) =>
      designCase(algorithm, realistic[i]?.errorRate ?? NaN, adversarial[i]?.errorRate ?? NaN, sweep),
    );
  },
};

function designCase(algorithm: Algorithm, realistic: number, adversarial: number, sweep: MemorySweep): FidelityCase {
  const design = DESIGN[algorithm];
  const bytes = sweep.rows.filter((row) => row.algorithm === algorithm).map((row) => row.bytesPerKey);
  const { bytesPerUnit, growth } = slopeOf(algorithm, sweep.rows);
  const slope = bytesPerUnit ?? NaN;
  const burst = burstInOneMs(algorithm);
  const expectedBurst = hasBucket(algorithm) ? BURST_POLICY.burst : BURST_POLICY.limit;
  const exactOk = design.exact ? realistic === 0 && adversarial === 0 : adversarial > 0;
  const memoryOk = design.slope === 0 ? growth === 'O(1)' : slope > design.slope / 2 && slope < design.slope * 2;
  return judged(
    {
      id: `design/${algorithm}`,
      claim: `${algorithm}: ${design.exact ? 'exact' : 'approximate'}, memory ${design.slope === 0 ? 'O(1)' : 'O(limit)'} per key, burst ${hasBucket(algorithm) ? 'b' : 'limit'} in 1 ms`,
      source: 'the design table (README "One policy, five algorithms")',
      scenario: `error: zipf-many-keys / sliding-counter-worst; memory: ${SWEEP_KEYS.toLocaleString('en-US')} full keys at limits ${MEMORY_LIMITS.join(', ')}; burst: 100/s, b = 20`,
      expected: `${design.exact ? 'error 0%/0%' : 'error >= 0%/> 0%'}; ${design.slope === 0 ? 'flat' : `~${design.slope} B/unit`}; burst ${expectedBurst}`,
      measured: `error ${fixed(realistic)}%/${fixed(adversarial)}%; ${bytes.map((b) => Math.round(b)).join('/')} B (${fixed(slope)} B/unit); burst ${burst}`,
      details: {
        errorPercent: { realistic, adversarial },
        bytesPerKey: Object.fromEntries(MEMORY_LIMITS.map((l, k) => [l, bytes[k]])),
        slopeBytesPerUnit: slope,
        burstInOneMs: burst,
      },
    },
    exactOk && memoryOk && burst === expectedBurst,
  );
}
