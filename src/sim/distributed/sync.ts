import type { Policy } from '../../core/policy.js';
import type { Design, Verdict } from './design.js';
import type { StoreCalls } from './store-calls.js';
import { SyncedWindow } from './synced-window.js';
import type { SyncSchedule } from './sync-schedule.js';

const DENY: Verdict = { allowed: false };
const ADMIT: Verdict = { allowed: true };

/**
 * `sync`: each node counts admissions over the sliding window `(t - W, t]` (an exact log,
 * whatever the algorithm) and admits when its count of the global total, plus the cost,
 * fits the global limit. Its count is exact for its own admissions and for everyone's up
 * to the last sync (see `SyncSchedule`), and misses the other nodes' admissions since:
 * at most `syncMs + rttMs` of their traffic. So the fleet can exceed the limit by up to
 * what the other N - 1 nodes admit in that time, about `(N - 1) x rate per node x
 * (syncMs + rttMs)`. Decisions never wait on the network; the exchanges are its calls to
 * the store (see {@link SyncDesign.advance}).
 */
export class SyncDesign implements Design {
  readonly remote = false;
  readonly needsStore = true;
  private readonly windows = new Map<string, SyncedWindow>();
  /** Exchanges started so far: the ticks `k * syncMs` for k below this. */
  private exchanges = 0;

  constructor(
    private readonly policy: Policy,
    private readonly nodes: number,
    private readonly schedule: SyncSchedule,
    private readonly calls: StoreCalls,
  ) {}

  decide(node: number, key: string, cost: number, t: number): Verdict {
    const window = this.window(key, t);
    if (window.estimate(node) + cost > this.policy.limit) return DENY;
    window.add(t, node, cost);
    return ADMIT;
  }

  /** Open: keep deciding on the counts received before the outage (they age and drop out of the window). */
  decideOpen(node: number, key: string, cost: number, t: number): Verdict {
    return this.decide(node, key, cost, t);
  }

  /** The node's own admissions count toward its estimate, and reach the others at the next sync. */
  admittedLocally(node: number, key: string, cost: number, t: number): void {
    this.window(key, t).add(t, node, cost);
  }

  /**
   * Makes the exchanges due before `t`, one tick at a time. What each one delivers, the
   * windows take lazily from the schedule when a key is next decided (`window`); here each
   * counts its calls: at every tick each node sends its counts and reads the others' in
   * one round trip (all its keys in one pipeline), whether or not the store answers (an
   * exchange started in an outage is sent, times out and is lost).
   */
  advance(t: number): void {
    while (this.exchanges * this.schedule.syncMs < t) {
      this.calls.add(this.nodes);
      this.exchanges += 1;
    }
  }

  /** The key's window, brought up to `t`: expired to `t - W` and synced to the last exchange. */
  private window(key: string, t: number): SyncedWindow {
    let window = this.windows.get(key);
    if (window === undefined) {
      window = new SyncedWindow(this.nodes);
      this.windows.set(key, window);
    }
    window.expire(t - this.policy.windowMs);
    window.syncUpTo(this.schedule.lastSync(t));
    return window;
  }
}
