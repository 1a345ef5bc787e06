/** `ratelab bench` arguments for a run small enough for a test: one algorithm, 10 keys, two 10 ms rounds, no memory probe. */
export const TINY_BENCH = [
  'bench',
  '--quick',
  '--rounds',
  '2',
  '--time',
  '10ms',
  '--keys',
  '10',
  '--memory-keys',
  '0',
  '--algorithms',
  'token-bucket',
];
