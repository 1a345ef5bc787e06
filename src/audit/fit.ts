import { agreements, replay, type Decided, type Hypothesis } from './models.js';
import type { ProbeShot } from './probe-client.js';
import { isAdmittedShot, isDecidedShot } from './shot-outcome.js';

/** One client's decided requests, in sending order: when each arrived and whether it was admitted. */
export interface ClientHistory {
  arrivals: number[];
  /** The decisions, in the same order, as the models score them. */
  decisions: Decided[];
  /** The shots, in the same order. */
  shots: ProbeShot[];
}

/** How well a hypothesis reproduces what the endpoint decided. */
export interface Fit {
  hypothesis: Hypothesis;
  /** Decisions the hypothesis reproduces. */
  matches: number;
  /** Decisions compared. */
  total: number;
}

/** Answers faster than this were decided just before they were sent, ms; slower ones somewhere along the way. */
const FAST_ANSWER_MS = 5;

/**
 * When the endpoint decided a request, epoch ms. A fast answer was decided just before it
 * left (a fresh connection's handshake comes first, so the sending time is too early); a
 * slow one at the midpoint of its flight, as nothing tells where its handler spent the time.
 */
export function arrivalOf(shot: ProbeShot): number {
  const flight = shot.latencyMs;
  return shot.epochMs + (flight <= FAST_ANSWER_MS ? Math.max(flight / 2, flight - 0.2) : flight / 2);
}

function decidedOf(shot: ProbeShot): Decided {
  return {
    earliest: shot.epochMs,
    latest: shot.epochMs + shot.latencyMs,
    at: arrivalOf(shot),
    admitted: isAdmittedShot(shot),
  };
}

/**
 * The decided requests grouped by the state they share at the endpoint (`stateOf`: the
 * client, or one key for a global limit), each group in arrival order.
 */
export function clientHistories(shots: readonly ProbeShot[], stateOf: (shot: ProbeShot) => string): ClientHistory[] {
  const groups = new Map<string, ProbeShot[]>();
  for (const shot of shots) {
    if (!isDecidedShot(shot)) continue;
    const key = stateOf(shot);
    const group = groups.get(key);
    if (group) group.push(shot);
    else groups.set(key, [shot]);
  }
  return [...groups.values()].map((group) => {
    const sorted = [...group].sort((a, b) => arrivalOf(a) - arrivalOf(b));
    return { arrivals: sorted.map(arrivalOf), decisions: sorted.map(decidedOf), shots: sorted };
  });
}

/** How many of the histories' decisions `hypothesis` reproduces. */
export function fitOf(hypothesis: Hypothesis, histories: readonly ClientHistory[]): Fit {
  let matches = 0;
  let total = 0;
  for (const history of histories) {
    for (const agrees of agreements(hypothesis, history.decisions)) if (agrees) matches++;
    total += history.decisions.length;
  }
  return { hypothesis, matches, total };
}

/** What `hypothesis` decides of every shot of the histories. */
export function predictions(hypothesis: Hypothesis, histories: readonly ClientHistory[]): Map<ProbeShot, boolean> {
  const out = new Map<ProbeShot, boolean>();
  for (const history of histories) {
    const predicted = replay(hypothesis, history.arrivals);
    history.shots.forEach((shot, i) => out.set(shot, predicted[i] as boolean));
  }
  return out;
}

/** Every candidate of the best's family that fits as well, within the noise: the figures the evidence cannot tell apart. */
export function tiedFits(candidates: readonly Hypothesis[], histories: readonly ClientHistory[], best: Fit): Fit[] {
  const fits = candidates.filter((h) => h.family === best.hypothesis.family).map((h) => fitOf(h, histories));
  const most = Math.max(...fits.map((fit) => fit.matches));
  return fits.filter((fit) => fit.matches >= most - noiseAllowance(fit.total));
}

/**
 * Decisions a hypothesis may miss and still count as good as the best: timing noise (a
 * request decided a fraction of a millisecond from where its flight suggests) flips a few.
 */
function noiseAllowance(total: number): number {
  return Math.max(1, Math.floor(total / 100));
}

/**
 * The best of `candidates` (all of one family): the first that comes within the noise
 * allowance of the most decisions reproduced. Callers list round figures first, so among
 * hypotheses the evidence cannot tell apart the figure a person would configure wins.
 */
export function bestFit(candidates: readonly Hypothesis[], histories: readonly ClientHistory[]): Fit | undefined {
  const fits = candidates.map((hypothesis) => fitOf(hypothesis, histories));
  const most = Math.max(...fits.map((fit) => fit.matches));
  return fits.find((fit) => fit.matches >= most - noiseAllowance(fit.total));
}
