import { median } from 'simple-statistics';
import { RLF, medianRatio, type RedisBenchResult } from '../bench/redis-throughput.js';
import { roundToPlaces } from './round.js';

/** One contender at one in-flight level of `ratelab bench redis`: the figures its table row and bar show. */
export interface RedisContenderMedians {
  inFlight: number;
  contender: string;
  /** Median over the rounds of calls per second. */
  callsPerSec: number;
  /** Median over the rounds of the per-round ratio of calls/s to rate-limiter-flexible's; null without it. */
  xRlf: number | null;
}

/** Per level, per contender (in the run's order), its median calls/s and x RLF, rounded as the JSON writes them. */
export function redisMedians(result: RedisBenchResult): RedisContenderMedians[] {
  return result.levels.flatMap((level) => {
    const baseline = level.contenders.find((c) => c.name === RLF);
    return level.contenders.map((c) => ({
      inFlight: level.inFlight,
      contender: c.name,
      callsPerSec: Math.round(median(c.callsPerSec)),
      xRlf: baseline
        ? roundToPlaces(
            medianRatio(c, baseline, (f) => f.callsPerSec),
            3,
          )
        : null,
    }));
  });
}
