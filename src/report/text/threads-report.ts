import type { ThreadFigure } from '../../bench/threads.js';
import type { ChalkInstance } from 'chalk';
import { PLAIN } from './color.js';
import { barChart } from './bar-chart.js';
import { renderTable, rightAligned } from './table.js';

/** Where the thread bench ran: what the figures depend on besides the code. */
export interface Machine {
  cores: number;
  /** 1-minute load average when the run started (other work sharing the cores). */
  load: number;
  node: string;
}

function rate(value: number): string {
  return value >= 1e6 ? `${(value / 1e6).toFixed(2)}M/s` : `${(value / 1e3).toFixed(0)}k/s`;
}

/** The goal for per-key locks on 1e4 keys at 2 threads, as a ratio to 1 thread. */
const GOAL = 1.6;

function workload(f: ThreadFigure): string {
  if (f.locking === 'compute') return 'pure compute';
  return f.keys === 1 ? 'hot key' : `${f.keys} keys`;
}

/**
 * The thread bench as a table (decisions/s of all threads together, the ratio to the
 * fewest threads, the ratio to the global lock), the machine's ceiling first; then, when
 * measured, per-key locks on 1e4 keys at 2 threads beside the ceiling of the same run; bars
 * of the decisions/s (a group per workload, one scale from 0); and the machine.
 */
export function renderThreadBench(
  figures: readonly ThreadFigure[],
  machine: Machine,
  paint: ChalkInstance = PLAIN,
  width = 80,
): string {
  const rows = figures.map((f) => [
    workload(f),
    f.locking === 'compute' ? '' : f.locking,
    String(f.threads),
    rate(f.decisionsPerSec),
    `${f.scaling.toFixed(2)}x`,
    f.locking === 'per-key' ? `${f.vsGlobal.toFixed(2)}x` : '',
  ]);
  const table = renderTable(
    [{ header: 'workload' }, { header: 'locking' }, ...rightAligned('threads', 'decisions', 'x fewest', 'x global')],
    rows,
  );
  const lines = [table];
  const two = figures.find((f) => f.keys === 10_000 && f.locking === 'per-key' && f.threads === 2);
  const ceiling = figures.find((f) => f.locking === 'compute' && f.threads === 2);
  if (two) {
    lines.push(
      `per-key locks, 1e4 keys, 2 threads: ${two.scaling.toFixed(2)}x the fewest threads (goal >= ${GOAL}x), ${two.vsGlobal.toFixed(2)}x the global lock (goal > 1x)\n`,
    );
  }
  if (ceiling) {
    lines.push(
      `the machine's ceiling in this run (pure compute, 2 threads): ${ceiling.scaling.toFixed(2)}x the fewest threads\n`,
    );
    // Nothing scales past the machine: a ceiling under the goal leaves the goal unjudged.
    if (ceiling.scaling < GOAL)
      lines.push(
        `the ceiling is under the goal: this run cannot tell whether the limiter meets it; rerun on a quiet machine\n`,
      );
  }
  lines.push(`${barChart({ ...decisionBars(figures), width, paint }).join('\n')}\n`);
  lines.push(
    `machine: ${machine.cores} cores, load average ${machine.load.toFixed(2)} at the start, Node ${machine.node}\n`,
  );
  return lines.join('\n');
}

/** The bars of the table's decisions/s: a group per workload (in the table's order), a bar per locking and thread count. */
function decisionBars(figures: readonly ThreadFigure[]) {
  const workloads = [...new Set(figures.map(workload))];
  return {
    title: 'decisions/s of all threads together (longer is faster)',
    groups: workloads.map((name) => ({
      heading: name,
      bars: figures
        .filter((f) => workload(f) === name)
        .map((f) => ({
          label: `${f.locking === 'compute' ? '' : `${f.locking}, `}${f.threads} thread${f.threads === 1 ? '' : 's'}`,
          value: f.decisionsPerSec,
        })),
    })),
    format: rate,
  };
}
