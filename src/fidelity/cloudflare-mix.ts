import type { ReplayMetrics } from '../metrics/recorder.js';
import { builtinContender } from '../sim/contender.js';
import { replay } from '../sim/replay.js';
import type { Arrival, TrafficSource } from '../traffic/arrival.js';
import { Random } from '../traffic/random.js';
import { TrafficStream } from '../traffic/stream.js';

/**
 * A Cloudflare-like mix: many sources, each a Poisson process at its own rate, of three
 * kinds. Every assumption is a field, and docs/lab.md lists them with the reasons.
 */
export interface CloudflareMix {
  /** Distinct sources (keys). Cloudflare's report: 270,000. */
  sources: number;
  /** The threshold each source is held to: `limit` requests per `windowMs`. */
  limit: number;
  windowMs: number;
  /** Length of the mix, ms. */
  durationMs: number;
  /**
   * Quiet sources (all the others): rate `min * U^(-1/alpha)` per window (Pareto: heavy-tailed,
   * most near `min`), capped at `cap` of the threshold so none comes near it.
   */
  quiet: { alpha: number; min: number; cap: number };
  /** Share of the sources near the threshold, and their rate as a range of multiples of it. */
  nearShare: number;
  near: { low: number; high: number };
  /** Attackers: floods of `times` the threshold's rate lasting `floodMs`, starting at a random time. */
  attackers: number;
  attack: { times: number; floodMs: number };
}

/** The shipped mix (see docs/lab.md, "Cloudflare's 0.003%"). */
export const CLOUDFLARE_MIX: CloudflareMix = {
  sources: 270_000,
  limit: 60,
  windowMs: 60_000,
  durationMs: 300_000,
  quiet: { alpha: 1.5, min: 0.2, cap: 0.5 },
  nearShare: 0.00002,
  near: { low: 0.5, high: 1.1 },
  attackers: 5,
  attack: { times: 20, floodMs: 10_000 },
};

/** The classes of the mix, as arrival labels (the metrics count per label). */
const LABELS = ['quiet', 'near', 'attacker'] as const;

/** Bits of a sort key that hold the source number: sources < 2^20, times < 2^33 ms. */
const SOURCE_BITS = 2 ** 20;

/**
 * The mix's arrivals, generated per source then sorted once by (time, source) packed in
 * one float (a typed-array sort, no comparator), and served as one traffic source.
 */
export function mixArrivals(mix: CloudflareMix, seed: number): { source: TrafficSource; classOf: Uint8Array } {
  const random = new Random(seed, 7);
  const classOf = new Uint8Array(mix.sources);
  const packed: number[] = [];
  const nears = Math.round(mix.sources * mix.nearShare);
  for (let s = 0; s < mix.sources; s++) {
    const kind = s < mix.attackers ? 2 : s < mix.attackers + nears ? 1 : 0;
    classOf[s] = kind;
    const { startMs, endMs, perWindow } = sourceRate(mix, kind, random);
    const meanGap = mix.windowMs / perWindow;
    for (let t = startMs + random.exponential(meanGap); t < endMs; t += random.exponential(meanGap))
      packed.push(Math.floor(t) * SOURCE_BITS + s);
  }
  const sorted = Float64Array.from(packed).sort();
  return { source: new SortedSource(sorted, classOf), classOf };
}

function sourceRate(
  mix: CloudflareMix,
  kind: number,
  random: Random,
): { startMs: number; endMs: number; perWindow: number } {
  if (kind === 2) {
    const startMs = random.uniform() * (mix.durationMs - mix.attack.floodMs);
    return { startMs, endMs: startMs + mix.attack.floodMs, perWindow: mix.attack.times * mix.limit };
  }
  const perWindow =
    kind === 1
      ? mix.limit * (mix.near.low + random.uniform() * (mix.near.high - mix.near.low))
      : Math.min(random.pareto(mix.quiet.alpha, mix.quiet.min), mix.quiet.cap * mix.limit);
  return { startMs: 0, endMs: mix.durationMs, perWindow };
}

/** Pre-sorted packed arrivals as a traffic source. */
class SortedSource implements TrafficSource {
  private at = 0;
  private readonly keys: string[] = [];

  constructor(
    private readonly packed: Float64Array,
    private readonly classOf: Uint8Array,
  ) {}

  peek(): number {
    return this.at < this.packed.length ? Math.floor((this.packed[this.at] as number) / SOURCE_BITS) : Infinity;
  }

  take(): Arrival {
    const value = this.packed[this.at++] as number;
    const t = Math.floor(value / SOURCE_BITS);
    const id = value - t * SOURCE_BITS;
    const key = (this.keys[id] ??= `src${id}`);
    return { t, key, cost: 1, id, label: LABELS[this.classOf[id] as number] };
  }
}

/** The sliding counter replayed over the mix against the exact oracle. */
export async function replayMix(mix: CloudflareMix, seed: number): Promise<ReplayMetrics> {
  const policy = { limit: mix.limit, windowMs: mix.windowMs };
  const { source } = mixArrivals(mix, seed);
  const { metrics } = await replay(builtinContender('sliding-counter', policy), new TrafficStream([source]), {
    limit: mix.limit,
    windowMs: mix.windowMs,
    bucketMs: mix.windowMs,
    originMs: 0,
  });
  return metrics;
}

/** Near-threshold shares of the sources the sweep replays (on a tenth of the sources: the error depends on the shares, not the count). */
const SWEEP = [0.0002, 0.001, 0.01, 0.05];

/** One row of the sweep: the share of sources near the threshold and what the counter got wrong. */
export interface MixRow {
  nearShare: number;
  sources: number;
  requests: number;
  /** Share of the requests that came from near-threshold sources, percent. */
  nearRequestPercent: number;
  errorPercent: number;
  falseAdmits: number;
  falseDenials: number;
  /** Most any source got through in one window, over its threshold. */
  worstWindowRatio: number;
}

/** The mix's row, from a replay. */
export function mixRow(mix: CloudflareMix, m: ReplayMetrics): MixRow {
  const near = m.labels.find((l) => l.label === 'near')?.offered ?? 0;
  return {
    nearShare: mix.nearShare,
    sources: mix.sources,
    requests: m.offered,
    nearRequestPercent: (100 * near) / m.offered,
    errorPercent: m.errorRate,
    falseAdmits: m.falseAdmits,
    falseDenials: m.falseDenials,
    worstWindowRatio: m.worstWindowRatio,
  };
}

/** The sweep: the same mix on a tenth of the sources, with more and more of them near the threshold. */
export async function mixSweep(mix: CloudflareMix, seed: number): Promise<MixRow[]> {
  const rows: MixRow[] = [];
  for (const nearShare of SWEEP) {
    const variant = { ...mix, sources: Math.round(mix.sources / 10), nearShare };
    rows.push(mixRow(variant, await replayMix(variant, seed)));
  }
  return rows;
}
