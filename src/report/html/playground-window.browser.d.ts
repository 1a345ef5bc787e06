// The globals of the playground page (playground-page.browser.js): the core the page runs,
// put on globalThis by playground-html.ts's browserCore, and what the page offers its tests
// and bench. Seen only by tsc -p tsconfig.browser.json.

interface Window {
  /**
   * The core entry `ratelab` (dist/browser/index.js, inlined): the same exports as
   * `import('ratelab')`; typed here as far as the page uses them (src/index.ts is an entry
   * point, which nothing in src/ imports).
   */
  ratelab: {
    ManualClock: typeof import('../../core/clock.js').ManualClock;
    createLimiter: typeof import('../../memory/limiter.js').createLimiter;
    checkPolicy: typeof import('../../core/policy.js').checkPolicy;
  };
  /** The playground's state and controls for tests and bench/playground-replay.mjs. */
  ratelabPlayground: {
    session(): {
      policy: { limit: number; windowMs: number; burst: number | null };
      now: number;
      mode: string;
      events: number;
    };
    /** Per algorithm, each decided request's outcome against the oracle: A, D, FA, FD. */
    strips(): Record<string, string[]>;
    /** Per algorithm (and `exact`, the oracle), each decided request's allowed flag. */
    admitted(): Record<string, boolean[]>;
    /** Per algorithm shown (and `exact`), the peak of the trailing-window count / limit. */
    peaks(): Record<string, number>;
    /** The trailing-window chart: its y axis's top (x the limit) and its series' labels. */
    chart(): { yMax: number; series: string[] };
    /** The session as a CSV trace (time_ms,key,cost). */
    trace(): string;
    /** The URL fragment of the session (without `#`). */
    fragment(): string;
    /** Replaces the session by `events` ([t ms, cost]) at `policy`, decided to the last; returns the ms taken. */
    replay(events: [number, number][], policy: { limit: number; windowMs: number; burst: number | null }): number;
  };
}
