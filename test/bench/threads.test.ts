// `ratelab bench --threads`: the figures' shape and the command's refusals. Speed itself is
// the bench's business (figures in docs/shared.md), never a test's.
import { describe, expect, it } from 'vitest';
import { runThreadBench, type ThreadFigure } from '../../src/bench/threads.js';
import { run as runCli } from '../../src/cli/main.js';
import { bufferIO } from '../../src/report/io.js';
import { renderThreadBench } from '../../src/report/text/threads-report.js';

describe('the thread bench', () => {
  it("measures the machine's ceiling (pure compute) and every workload, locking and thread count, each against the fewest threads and the global lock", async () => {
    const figures = await runThreadBench({
      threads: [1, 2],
      algorithm: 'gcra',
      keyCounts: [1, 10_000],
      timeMs: 20,
      rounds: 1,
    });
    expect(figures.map((f) => `${f.keys}/${f.locking}/${f.threads}`)).toEqual([
      '0/compute/1',
      '0/compute/2',
      '1/per-key/1',
      '1/per-key/2',
      '1/global/1',
      '1/global/2',
      '1/unshared/1',
      '1/unshared/2',
      '10000/per-key/1',
      '10000/per-key/2',
      '10000/global/1',
      '10000/global/2',
      '10000/unshared/1',
      '10000/unshared/2',
    ]);
    for (const f of figures) expect(f.decisionsPerSec).toBeGreaterThan(0);
    expect(figures.filter((f) => f.threads === 1).every((f) => f.scaling === 1)).toBe(true);
    expect(figures.filter((f) => f.locking === 'global').every((f) => f.vsGlobal === 1)).toBe(true);
    const text = renderThreadBench(figures, { cores: 2, load: 1.5, node: '20.0.0' });
    expect(text).toContain('per-key locks, 1e4 keys, 2 threads:');
    expect(text).toContain("the machine's ceiling in this run (pure compute, 2 threads):");
    expect(text).toMatch(/^pure compute +2 /m);
    expect(text).toContain('machine: 2 cores, load average 1.50');
    // A bar per figure (its decisions/s, a JSON field), a group per workload, within 80 columns.
    const bars = text.slice(text.indexOf('decisions/s of all threads together'));
    expect(bars.match(/^ {2}(per-key|global|unshared)?(, )?\d threads? +[█-▏]+ [\d.]+[Mk]\/s$/gm)).toHaveLength(14);
    expect(bars).toMatch(/\n10000 keys\n {2}per-key, 1 thread /);
    for (const line of bars.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  }, 60_000);

  it('says when the ceiling of the run is under the goal, so the run cannot judge it', () => {
    const figure = (locking: ThreadFigure['locking'], threads: number, scaling: number): ThreadFigure => ({
      keys: locking === 'compute' ? 0 : 10_000,
      locking,
      threads,
      decisionsPerSec: 1e6 * threads * scaling,
      scaling,
      vsGlobal: 1,
    });
    const machine = { cores: 2, load: 9, node: '20.0.0' };
    const loaded = renderThreadBench(
      [figure('compute', 1, 1), figure('compute', 2, 1.2), figure('per-key', 1, 1), figure('per-key', 2, 1.1)],
      machine,
    );
    expect(loaded).toContain('the ceiling is under the goal: this run cannot tell');
    const quiet = renderThreadBench(
      [figure('compute', 1, 1), figure('compute', 2, 1.95), figure('per-key', 1, 1), figure('per-key', 2, 1.7)],
      machine,
    );
    expect(quiet).not.toContain('the ceiling is under the goal');
    expect(quiet).toContain('1.70x the fewest threads (goal >= 1.6x)');
  });

  it.each([['0'], ['1,x'], ['']])('--threads %j is refused with exit 2 and one line', async (value) => {
    const io = bufferIO();
    expect(await runCli(['bench', '--threads', value], io)).toBe(2);
    expect(io.err().trim().split('\n')).toHaveLength(1);
    expect(io.err()).toContain('--threads');
  });
});
