import { MetricsRecorder, type ReplayMetrics } from '../metrics/recorder.js';
import type { ProbeShot } from './probe-client.js';
import { isAdmittedShot, isDecidedShot } from './shot-outcome.js';

/**
 * One client's decided requests judged with the lab's metrics against the exact oracle (a
 * sliding log of `limit` per `windowMs`), in sending order: the worst-window ratio, the
 * false admits and denials mean what they mean in `compare`.
 */
export function judgeAgainstOracle(shots: readonly ProbeShot[], limit: number, windowMs: number): ReplayMetrics {
  const decided = shots.filter(isDecidedShot).sort((a, b) => a.sentMs - b.sentMs);
  const recorder = new MetricsRecorder({ limit, windowMs, bucketMs: windowMs, originMs: 0 });
  for (const shot of decided) recorder.record(Math.max(0, shot.sentMs), 'client', 1, isAdmittedShot(shot));
  return recorder.result();
}
