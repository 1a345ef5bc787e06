import { performance } from 'node:perf_hooks';

/**
 * Starts watching this process's event loop; the function returned stops it and gives the
 * longest stall seen, in ms: how late a 5 ms interval timer ran past its 5 ms (the process
 * starved of CPU, or its loop blocked).
 */
export function stallProbe(): () => number {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last - 5);
    last = now;
  }, 5);
  return () => {
    clearInterval(timer);
    return longest;
  };
}
