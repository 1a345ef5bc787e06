import type { BenchRun, Figure } from './bench-run.js';
import { LIMITS_ALGORITHM } from './subjects.js';

/** The algorithms whose speed and memory goals are O(1) per key. */
const CONSTANT_STATE = ['token-bucket', 'fixed-window', 'sliding-counter', 'gcra'] as const;
/** Workloads the speed goals are stated on. */
const GOAL_WORKLOADS = ['hot-key', 'keys-1e4'] as const;
const PEER = 'rate-limiter-flexible';
/**
 * The sliding log's memory goal per key: 8 B per unit of its limit (a full ring's
 * timestamps) + 64 B for everything else (its columns, the slot table, the key index).
 */
function slidingLogGoalBytes(limit: number): number {
  return 8 * limit + 64;
}

/** Speed and memory targets of ratelab itself (listed in docs/bench.md), checked against a run. */
export interface GoalCheck {
  goal: string;
  target: string;
  actual: string;
  /** undefined when the run did not measure it. */
  met: boolean | undefined;
}

/**
 * Evaluates the goals on `run`:
 * - token bucket, fixed window, sliding counter, GCRA: ratio to the reference >= 1.0 on one
 *   hot key and on 1e4 keys, and >= 3x rate-limiter-flexible's decisions/s there;
 * - memory per key (state, without the key string): those four <= 60 B; the sliding log
 *   <= 8 B per slot of its limit + 64 B (`memoryLimit` is the probe's policy limit);
 * - the token bucket under two limits (`consume`) at most 2.2x the time per decision under one;
 * - the token bucket with a no-op decision listener (`consume`) at most 2.2x the time without.
 */
export function checkGoals(run: BenchRun, memoryLimit: number): GoalCheck[] {
  const figure = (name: string) => run.figures.find((f) => f.name === name);
  const checks: GoalCheck[] = [];
  for (const algorithm of CONSTANT_STATE) {
    for (const workload of GOAL_WORKLOADS) {
      const mine = figure(`${algorithm}/${workload}`);
      checks.push(atLeast(`${algorithm} on ${workload}: x reference`, mine?.ratio, 1));
      const peer = figure(`${PEER}/${workload}`);
      const versus = mine && peer && peer.value > 0 ? mine.value / peer.value : undefined;
      checks.push(atLeast(`${algorithm} on ${workload}: x ${PEER}`, versus, 3));
    }
    checks.push(atMost(`${algorithm} memory per key`, figure(`${algorithm}/memory`), 60));
  }
  for (const workload of GOAL_WORKLOADS) checks.push(secondLimitCost(run, workload));
  for (const workload of GOAL_WORKLOADS) checks.push(listenerCost(run, workload));
  checks.push(
    atMost(
      `sliding-log memory per key (limit ${memoryLimit})`,
      figure('sliding-log/memory'),
      slidingLogGoalBytes(memoryLimit),
    ),
  );
  return checks;
}

/** The most a second limit may multiply a decision's time by (`consume`, two limits against one). */
const SECOND_LIMIT_TIME = 2.2;

/**
 * Time per decision under two limits over time under one, both through `consume`: the ratio of
 * their ratios to the reference measured beside each, so the noise of the run cancels out.
 */
function secondLimitCost(run: BenchRun, workload: string): GoalCheck {
  return timesOneLimit(run, workload, '2-limits', 'time of 2 limits x 1 limit (consume)', SECOND_LIMIT_TIME);
}

/** The most a no-op decision listener may multiply a decision's time by (`consume`, with one against none). */
const LISTENER_TIME = 2.2;

/** Time per decision with a no-op listener over time without, read as {@link secondLimitCost} reads its pair. */
function listenerCost(run: BenchRun, workload: string): GoalCheck {
  return timesOneLimit(run, workload, 'listener', 'time with a no-op listener x none (consume)', LISTENER_TIME);
}

/**
 * The time per decision of the `${LIMITS_ALGORITHM}:${subject}` figure over the one-limit
 * subject's on `workload` (the ratio of their ratios to the reference), against `most`.
 */
function timesOneLimit(run: BenchRun, workload: string, subject: string, what: string, most: number): GoalCheck {
  const one = run.figures.find((f) => f.name === `${LIMITS_ALGORITHM}:1-limit/${workload}`);
  const other = run.figures.find((f) => f.name === `${LIMITS_ALGORITHM}:${subject}/${workload}`);
  const goal = `${LIMITS_ALGORITHM} on ${workload}: ${what}`;
  const target = `<= ${most}`;
  if (!one || !other || other.ratio <= 0) return { goal, target, actual: '', met: undefined };
  const times = one.ratio / other.ratio;
  return { goal, target, actual: times.toFixed(2), met: times <= most };
}

function atLeast(goal: string, actual: number | undefined, target: number): GoalCheck {
  if (actual === undefined) return { goal, target: `>= ${target}`, actual: '', met: undefined };
  return { goal, target: `>= ${target}`, actual: actual.toFixed(2), met: actual >= target };
}

function atMost(goal: string, memory: Figure | undefined, bytes: number): GoalCheck {
  if (memory === undefined) return { goal, target: `<= ${bytes} B`, actual: '', met: undefined };
  return { goal, target: `<= ${bytes} B`, actual: `${memory.value.toFixed(1)} B`, met: memory.value <= bytes };
}

/**
 * Why the `x reference >= 1.0` goals can fail, printed under the goals when one does (the
 * measurements behind it are in docs/bench.md). Not a lowered target: the goal stays.
 */
export const REFERENCE_GOAL_NOTE = [
  'Why x reference < 1: the reference is a Map hit and two in-object field updates (~8 ns per',
  'decision on one hot key here). Each ratelab decision also checks the clock reading, keeps a',
  "key's time from going backwards, tracks idle keys for removal without timers, and keeps",
  "state in typed-array columns (56 B per key against the reference's 69 B) reached through",
  'the slot table and the meter. Tried: the idle sweep skipped while no key can be idle',
  '(largest gain at 1e4 keys); class fields assigned, not defined (token bucket 12.7 -> 9.2 ns);',
  "the sweep loop out of line; the aligned window's start cached (fixed window 12.0 -> 9.5 ns).",
  'Removing the clock check, the time guard or the LRU test one at a time gained nothing',
  'measurable; a bare typed-array bucket without them measured 9.1 ns, a class with the same',
  'columns 7.7-8.0 ns. The goal stands: not met on one hot key; at 1e4 keys the token bucket',
  'is within noise of it, the others not.',
].join('\n');

/** Whether any goal on the ratio to the reference was measured and missed. */
export function referenceGoalMissed(checks: readonly GoalCheck[]): boolean {
  return checks.some((check) => check.goal.endsWith('x reference') && check.met === false);
}
