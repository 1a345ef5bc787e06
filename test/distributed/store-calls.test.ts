// How many calls each design makes to the store (DistributedRow.storeCalls): counted
// where the simulated call happens, a round trip each, those that time out included.
import { describe, expect, it } from 'vitest';
import { Fleet } from '../../src/sim/distributed/fleet.js';
import type { FleetOptions } from '../../src/sim/distributed/fleet-options.js';
import { simulateDistributed } from '../../src/sim/distributed/simulate.js';
import { Random } from '../../src/traffic/random.js';
import { fleet, scenario, steady } from './helpers.js';

const RUN_MS = 10_000;
/** 50 requests a second for 10 s, one every 20 ms from 0: 500 decisions, the same in every design. */
const traffic = scenario('10s', steady(50));
const outage = { startMs: 2_000, endMs: 4_000 };

describe('store calls over a run', () => {
  it.each([
    { design: fleet(), calls: (offered: number) => offered, why: 'every central decision is one round trip' },
    {
      design: fleet({ outage }),
      calls: (offered: number) => offered,
      why: 'open: the calls in the outage are sent, and time out before the fail mode decides',
    },
    {
      design: fleet({ outage, failMode: 'closed' }),
      calls: (offered: number) => offered,
      why: 'closed denies only once the call has timed out',
    },
    {
      design: fleet({ outage, failMode: 'local' }),
      calls: (offered: number) => offered,
      why: 'local falls back to the node limiter once the call has timed out',
    },
    { design: fleet({ strategy: 'local-split' }), calls: () => 0, why: 'no store at all' },
    {
      design: fleet({ strategy: 'sync', nodes: 4, syncMs: 100 }),
      calls: () => 4 * (RUN_MS / 100),
      why: 'one call per node at each of the 100 ticks 0, 100ms, ..., 9.9s',
    },
    {
      design: fleet({ strategy: 'sync', nodes: 4, syncMs: 250 }),
      calls: () => 4 * (RUN_MS / 250),
      why: 'a longer period, fewer ticks: 40',
    },
    {
      design: fleet({ strategy: 'sync', nodes: 1, syncMs: 100 }),
      calls: () => RUN_MS / 100,
      why: 'one node still exchanges with the store every tick',
    },
    {
      design: fleet({ strategy: 'sync', nodes: 3, syncMs: 300 }),
      calls: () => 3 * 34,
      why: 'the run is no whole number of periods: ticks 0, 300ms, ..., 9.9s (34) start before it ends',
    },
    {
      design: fleet({ strategy: 'sync', nodes: 4, syncMs: 100, outage }),
      calls: () => 4 * (RUN_MS / 100),
      why: 'the exchanges of the outage are sent and lost, not skipped',
    },
    {
      design: fleet({ strategy: 'sync', nodes: 4, syncMs: 100, rttMs: 0 }),
      calls: () => 4 * (RUN_MS / 100),
      why: 'the round trip delays an exchange, it does not change how many there are',
    },
  ] satisfies { design: FleetOptions; calls: (offered: number) => number; why: string }[])(
    '$design.strategy ($design.nodes nodes, $design.failMode): $why',
    async ({ design, calls }) => {
      const [row] = (await simulateDistributed(traffic, [design])).rows;
      expect(row!.offered).toBe(500);
      expect(row!.storeCalls).toBe(calls(row!.offered));
      expect(row!.storeCallsPerDecision).toBe(calls(row!.offered) / row!.offered);
    },
  );

  it('sync keeps exchanging after the last request, until the run ends', async () => {
    const early = scenario('10s', `  - kind: burst\n    keys: k\n    at: 0\n    count: 10\n`);
    const [row] = (await simulateDistributed(early, [fleet({ strategy: 'sync', nodes: 4, syncMs: 100 })])).rows;
    expect(row).toMatchObject({ offered: 10, storeCalls: 4 * (RUN_MS / 100), storeCallsPerDecision: 40 });
  });

  it('per decision: central 1, local-split 0, sync nodes x (run / period) / decisions', async () => {
    const rows = (
      await simulateDistributed(traffic, [
        fleet(),
        fleet({ strategy: 'local-split' }),
        fleet({ strategy: 'sync', nodes: 4, syncMs: 100 }),
      ])
    ).rows;
    expect(rows.map((row) => row.storeCallsPerDecision)).toEqual([1, 0, (4 * (RUN_MS / 100)) / 500]);
  });
});

describe('Fleet counts the calls as they are made', () => {
  /** A request every 10 ms from 0 to 990 ms on one key. */
  const list = Array.from({ length: 100 }, (_, i) => i * 10);

  function run(options: FleetOptions, endMs: number): { beforeEnd: number; afterEnd: number } {
    const time = { now: 0 };
    const cluster = new Fleet(options, { limit: 5, windowMs: 100 }, () => time.now, new Random(1, 1));
    for (const t of list) {
      time.now = t;
      cluster.consume('k', 1);
    }
    const beforeEnd = cluster.storeCalls();
    cluster.endRun(endMs);
    return { beforeEnd, afterEnd: cluster.storeCalls() };
  }

  it.each([
    {
      options: fleet({ strategy: 'central', outage: { startMs: 200, endMs: 300 } }),
      endMs: 2_000,
      beforeEnd: 100,
      afterEnd: 100,
      why: 'a call per decision, 10 of them timing out in the outage; nothing more once the requests stop',
    },
    {
      options: fleet({ strategy: 'sync', nodes: 4, syncMs: 100 }),
      endMs: 2_000,
      beforeEnd: 4 * 10,
      afterEnd: 4 * 20,
      why: 'by the last request (990 ms) the ticks 0-900 ms have gone out; the run goes on to 2 s, 10 ticks more',
    },
    {
      options: fleet({ strategy: 'sync', nodes: 2, syncMs: 100 }),
      endMs: 990,
      beforeEnd: 2 * 10,
      afterEnd: 2 * 10,
      why: 'a run ending at the last request adds no tick',
    },
    {
      options: fleet({ strategy: 'local-split' }),
      endMs: 2_000,
      beforeEnd: 0,
      afterEnd: 0,
      why: 'local decisions, no store',
    },
  ])('$options.strategy: $why', ({ options, endMs, beforeEnd, afterEnd }) => {
    expect(run(options, endMs)).toEqual({ beforeEnd, afterEnd });
  });
});
