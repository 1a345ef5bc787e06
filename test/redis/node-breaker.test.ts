import { expect, it } from 'vitest';
import { NodeBreakers } from '../../src/redis/node-breaker.js';

type Step = [at: number, action: 'allow' | 'ok' | 'fail' | 'cause', node: string, expected?: boolean | string];

// One breaker per node, on explicit times: a failure opens only its node for openMs (250),
// then one probe goes through (half-open) and its outcome closes or reopens the breaker.
// An open breaker keeps the failure's cause (a 'fail' step's is `failed at <at>`).
const STEPS: Step[] = [
  [0, 'allow', 'a', true],
  [0, 'fail', 'a'],
  [1, 'allow', 'a', false],
  [1, 'allow', 'b', true], // another node is not affected
  [1, 'cause', 'a', 'failed at 0'],
  [1, 'cause', 'b', undefined],
  [2, 'ok', 'a'], // a call sent before the failure answers late: still open
  [249, 'allow', 'a', false],
  [250, 'allow', 'a', true], // the probe
  [251, 'allow', 'a', false], // only one probe at a time
  [260, 'fail', 'a'], // the probe failed: open again from 260
  [261, 'cause', 'a', 'failed at 260'], // the latest failure
  [509, 'allow', 'a', false],
  [510, 'allow', 'a', true],
  [511, 'ok', 'a'], // the probe succeeded: closed
  [512, 'allow', 'a', true],
  [512, 'allow', 'a', true],
  [512, 'cause', 'a', undefined], // closed: nothing kept
];

it('opens per node, probes once when half-open, closes on success', () => {
  const breakers = new NodeBreakers(250);
  for (const [at, action, node, expected] of STEPS) {
    if (action === 'allow') expect([at, node, breakers.allow(node, at)]).toEqual([at, node, expected]);
    else if (action === 'cause') expect([at, node, breakers.causeOf(node)]).toEqual([at, node, expected]);
    else if (action === 'ok') breakers.succeeded(node);
    else breakers.failed(node, at, `failed at ${at}`);
  }
});
