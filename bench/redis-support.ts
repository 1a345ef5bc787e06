// Shared by the Redis benchmarks: run N calls with a fixed number in flight, medians, flags.
import { performance } from 'node:perf_hooks';

/** Runs `calls` invocations of `call(i)` keeping `inFlight` outstanding; returns calls per second. */
export async function throughput(
  calls: number,
  inFlight: number,
  call: (i: number) => Promise<unknown>,
): Promise<number> {
  let next = 0;
  const lane = async () => {
    while (next < calls) await call(next++);
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, lane));
  return calls / ((performance.now() - started) / 1000);
}

export const format = (n: number) => Math.round(n).toLocaleString('en-US');

/** The number after `--name` on the command line, or `fallback`. */
export function numberArg(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
}
