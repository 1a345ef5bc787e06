import type { AuditEdge } from './audit-report.js';
import { drain } from './drain.js';
import type { Identity } from './identities.js';
import type { ProbeClient, ProbeShot } from './probe-client.js';
import { judgeAgainstOracle } from './oracle-judge.js';
import { isAdmittedShot } from './shot-outcome.js';

/** Options of {@link probeEdge}. */
export interface EdgeProbeOptions {
  identity: Identity;
  limit: number;
  windowMs: number;
  /** Windows start at epoch multiples (else at the client's first request). */
  epochAligned: boolean;
  /** Epoch ms minus audit ms. */
  epochOffsetMs: number;
  /** How long a full quota takes to send one request at a time, ms (to finish the first burst before the edge). */
  burstMs: number;
}

/** What the edge probe sent, and what it measured. */
export interface EdgeReading {
  edge: AuditEdge;
  shots: ProbeShot[];
}

/** Room left after the first burst, before the edge, ms: the endpoint's clock and ours differ. */
const EDGE_MARGIN_MS = 15;

/**
 * The window edge: a full quota just before a window ends and another just after it. A
 * fixed window admits both (2x the limit within a few ms); a sliding log the first only.
 * With windows opened by the first request, one request opens the window and the rest of
 * the quota goes just before it closes.
 */
export async function probeEdge(client: ProbeClient, options: EdgeProbeOptions): Promise<EdgeReading> {
  const { identity, limit, windowMs, epochAligned, epochOffsetMs } = options;
  // Twice the discovery's time and a margin: the first burst must end before the edge.
  const burstMs = 2 * options.burstMs + EDGE_MARGIN_MS;
  const shots: ProbeShot[] = [];
  let edgeMs: number;
  if (epochAligned) {
    const nowEpoch = client.now() + epochOffsetMs;
    let boundary = Math.ceil(nowEpoch / windowMs) * windowMs;
    if (boundary - nowEpoch < burstMs) boundary += windowMs;
    edgeMs = boundary - epochOffsetMs;
  } else {
    const opener = await drain(client, 'edge', identity, { cap: 1 });
    shots.push(...opener.shots);
    edgeMs = opener.startMs + windowMs;
  }
  await client.sleepUntil(edgeMs - burstMs);
  const before = await drain(client, 'edge', identity, { cap: limit });
  await client.sleepUntil(edgeMs + EDGE_MARGIN_MS);
  const after = await drain(client, 'edge', identity, { cap: limit });
  shots.push(...before.shots, ...after.shots);
  const admitted = shots.filter(isAdmittedShot);
  const first = admitted[0];
  const last = admitted[admitted.length - 1];
  return {
    edge: {
      worstWindowRatio: judgeAgainstOracle(shots, limit, windowMs).worstWindowRatio,
      before: admitted.filter((shot) => shot.sentMs < edgeMs).length,
      after: admitted.filter((shot) => shot.sentMs >= edgeMs).length,
      spanMs: first && last ? last.sentMs - first.sentMs : 0,
    },
    shots,
  };
}
