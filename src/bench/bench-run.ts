import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { z } from 'zod';
import { RatelabError } from '../core/errors.js';

/** The format of `ratelab bench --json` and of baselines; bumped on any incompatible change. */
export const BENCH_FORMAT = 'ratelab-bench/1';

const figureSchema = z.object({
  /** `subject/workload` for speed, `subject/memory` for memory. */
  name: z.string().min(1),
  subject: z.string().min(1),
  /** The workload, or `memory`. */
  workload: z.string().min(1),
  unit: z.enum(['decisions/s', 'B/key']),
  /** Which way is better: decisions/s higher, bytes lower. */
  better: z.enum(['higher', 'lower']),
  /** The median over rounds (speed) or the probe's value (memory). */
  value: z.number().nonnegative(),
  /**
   * Speed figures: the median rate of the reference measured beside this subject (same rounds,
   * same processes). `ratio` is about value / referenceValue; compare subjects by `ratio`.
   */
  referenceValue: z.number().nonnegative().optional(),
  /** Median over rounds of value / the reference task's value in the same round. */
  ratio: z.number().nonnegative(),
  /** Relative spread of the ratio over rounds: median absolute deviation / median. */
  spread: z.number().nonnegative(),
  /** How many samples (rounds, or memory probes) the figure rests on. */
  samples: z.number().int().min(1),
  /** The per-round ratios, so a later run can test whether a change is beyond noise. */
  ratioSamples: z.array(z.number().nonnegative()).min(1),
  /** Per-decision latency percentiles in ns (batch time / batch size); speed figures only. */
  p50Ns: z.number().nonnegative().optional(),
  p99Ns: z.number().nonnegative().optional(),
  /** Fraction of decisions admitted during the measurement; speed figures only. */
  admitted: z.number().min(0).max(1).optional(),
  /** Why this figure reads as it does (e.g. a peer reading wall time). */
  note: z.string().optional(),
});

const runSchema = z.object({
  format: z.literal(BENCH_FORMAT),
  createdAt: z.string(),
  machine: z.object({
    platform: z.string(),
    arch: z.string(),
    cpu: z.string(),
    cores: z.number(),
    memoryGiB: z.number(),
    node: z.string(),
    v8: z.string(),
  }),
  settings: z.object({
    quick: z.boolean(),
    batch: z.number().int().min(1),
    rounds: z.number().int().min(1),
    roundMs: z.number().positive(),
    memoryKeys: z.number().int().min(0),
    workloads: z.array(
      z.object({
        name: z.string(),
        what: z.string(),
        keys: z.number(),
        policy: z.object({ limit: z.number(), windowMs: z.number() }),
        stepMs: z.number(),
      }),
    ),
  }),
  figures: z.array(figureSchema),
  /** How each peer was configured (peers read wall time; see PEER_POLICY). */
  peers: z.array(z.object({ name: z.string(), configuration: z.string() })).optional(),
  /** tinybench with batches vs a plain timed loop, on the reference (when measured). */
  harness: z.object({ workload: z.string(), batchedVsLoop: z.number(), unbatchedVsLoop: z.number() }).optional(),
  notes: z.array(z.string()),
  /**
   * The sources the figures were measured from: file -> a hash of its text (see
   * measuredSources), so a committed baseline can be found stale. Absent where the sources
   * were not there (an installed package), and in runs written before it.
   */
  sources: z.record(z.string(), z.string()).optional(),
});

/**
 * The most figures a saved run may hold: a full run with every peer and a few `--limiter`
 * modules makes under a hundred, so a file with more was not written by `bench --json`.
 */
export const MAX_FIGURES = 10_000;

/** The largest saved run read, in bytes (a full run writes well under 1 MiB). */
export const MAX_RUN_BYTES = 16 * 1024 * 1024;

export type Figure = z.infer<typeof figureSchema>;
export type BenchRun = z.infer<typeof runSchema>;

/**
 * Reads a saved run (a baseline). Throws `FILE_NOT_FOUND`, or `INVALID_BASELINE` with one
 * line saying what is wrong: larger than {@link MAX_RUN_BYTES}, not JSON, another format,
 * the first field that does not fit, more than {@link MAX_FIGURES} figures, or a figure twice.
 */
export async function readBenchRun(path: string, cwd: string): Promise<BenchRun> {
  let text: string;
  try {
    const { size } = await stat(resolve(cwd, path));
    if (size > MAX_RUN_BYTES)
      throw invalid(
        path,
        `${(size / 2 ** 20).toFixed(1)} MiB, larger than a saved run can be (${MAX_RUN_BYTES / 2 ** 20} MiB): not a baseline written by bench --json`,
      );
    text = await readFile(resolve(cwd, path), 'utf8');
  } catch (error) {
    if (error instanceof RatelabError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      throw new RatelabError('FILE_NOT_FOUND', `${path}: no such baseline file (create one with --update-baseline)`, {
        field: path,
      });
    throw new RatelabError('FILE_UNREADABLE', `${path}: cannot read the baseline: ${code ?? String(error)}`, {
      field: path,
    });
  }
  return parseBenchRun(text, path);
}

/** Parses and validates the text of a saved run; `source` names it in errors. */
export function parseBenchRun(text: string, source: string): BenchRun {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw invalid(source, `not JSON: ${(error as Error).message}`);
  }
  const format = (data as { format?: unknown } | null)?.format;
  if (typeof data === 'object' && data !== null && format !== BENCH_FORMAT) {
    throw invalid(
      source,
      `format: expected "${BENCH_FORMAT}" (a file written by ratelab bench --json), got ${JSON.stringify(format)}`,
    );
  }
  const result = runSchema.safeParse(data);
  if (!result.success) {
    const issue = result.error.issues[0] as z.core.$ZodIssue;
    const where = issue.path.length > 0 ? issue.path.map(String).join('.') : 'the file';
    throw invalid(source, `${where}: ${issue.message}`);
  }
  checkFigures(result.data.figures, source);
  return result.data;
}

/** At most {@link MAX_FIGURES} figures, each name once (a comparison pairs figures by name). */
function checkFigures(figures: readonly Figure[], source: string): void {
  if (figures.length > MAX_FIGURES) {
    throw invalid(
      source,
      `${figures.length.toLocaleString('en-US')} figures, more than a run makes (at most ${MAX_FIGURES.toLocaleString('en-US')}): not a baseline written by bench --json`,
    );
  }
  const seen = new Set<string>();
  for (const [i, figure] of figures.entries()) {
    if (seen.has(figure.name)) throw invalid(source, `figures.${i}: ${JSON.stringify(figure.name)} comes twice`);
    seen.add(figure.name);
  }
}

function invalid(source: string, why: string): RatelabError {
  return new RatelabError('INVALID_BASELINE', `${source}: ${why}`, { field: source });
}
