import type { ProbeShot } from './probe-client.js';

/** Whether the endpoint admitted the request: any 2xx. */
export function isAdmittedShot(shot: ProbeShot): boolean {
  return shot.status !== undefined && shot.status >= 200 && shot.status < 300;
}

/**
 * Whether the endpoint denied the request: a 4xx or 5xx (429 and 503 are the usual; the
 * report names the status it saw). A request with no response is neither.
 */
export function isDeniedShot(shot: ProbeShot): boolean {
  return shot.status !== undefined && shot.status >= 400;
}

/** Whether the request was decided: admitted or denied (not an error, not a redirect). */
export function isDecidedShot(shot: ProbeShot): boolean {
  return isAdmittedShot(shot) || isDeniedShot(shot);
}
