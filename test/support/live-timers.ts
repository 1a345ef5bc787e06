/**
 * How many timers that `work` created still hold the process open once it returned: a
 * finished command must leave none, or `node` waits for them before it exits. Counts only
 * the timers `work` itself made, so other tests' timers cannot change the answer. Timers
 * that go away by themselves shortly after (ioredis's guard while a closed socket drains)
 * are given up to `graceMs` before they count.
 */
import { createHook } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

export async function timersLeftBy(work: () => Promise<unknown>, graceMs = 2000): Promise<number> {
  const created: NodeJS.Timeout[] = [];
  const hook = createHook({
    init(_id, type, _trigger, resource) {
      if (type === 'Timeout') created.push(resource as NodeJS.Timeout);
    },
  });
  hook.enable();
  try {
    await work();
  } finally {
    hook.disable();
  }
  const live = () =>
    created.filter((timer) => timer.hasRef() && !(timer as unknown as { _destroyed: boolean })._destroyed).length;
  for (let waited = 0; live() > 0 && waited < graceMs; waited += 20) await sleep(20);
  return live();
}
