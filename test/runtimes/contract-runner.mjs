// The library's contract tables, played in whatever runtime imports this file (Bun, Deno,
// workerd, Node): plain JavaScript over the built `ratelab` bundle it is given, no test
// framework, no Node API. The tables are the suite's own (test/algorithms/*.steps.ts,
// test/wait/wait-tables.ts), sent as JSON by test/runtimes/runtimes.test.ts; Infinity is
// written "Infinity". Returns what passed and, for each row that did not, why.

/** The clock bases every step table is played at: 0, and epoch-sized (as test/contract does). */
const BASES = [0, 1_800_000_000_000];

/** JSON.parse reviver for the tables: "Infinity" back to Infinity. */
export function revive(_key, value) {
  return value === 'Infinity' ? Infinity : value;
}

/**
 * Plays `data` ({ steps: [{ algorithm, table }], waits: [table] }) with `ratelab`'s
 * createLimiter and ManualClock. Resolves { tables, passed, failures }.
 */
export async function runContract(ratelab, data) {
  const failures = [];
  let tables = 0;
  for (const { algorithm, table } of data.steps) {
    for (const base of BASES) {
      tables += 1;
      const failure = playSteps(ratelab, algorithm, table, base);
      if (failure !== undefined) failures.push(`${algorithm}, ${table.name}, base ${base}: ${failure}`);
    }
  }
  for (const table of data.waits) {
    tables += 1;
    const failure = await playWaits(ratelab, table);
    if (failure !== undefined) failures.push(`wait, ${table.name}: ${failure}`);
  }
  return { tables, passed: tables - failures.length, failures };
}

function playSteps({ createLimiter, ManualClock }, algorithm, table, base) {
  const clock = new ManualClock(base + (table.steps[0]?.at ?? 0));
  const limiter = createLimiter(algorithm, table.policy, { clock });
  for (const [i, row] of table.steps.entries()) {
    clock.set(base + row.at);
    const decision = limiter.consume('k', row.cost);
    const expected = { ...row.expect, limit: table.capacity };
    const got = defined(decision);
    if (!same(got, expected))
      return `row ${i + 1} (at ${row.at}, cost ${row.cost}: ${row.why}): got ${show(got)}, expected ${show(expected)}`;
  }
  return undefined;
}

async function playWaits({ createLimiter, ManualClock }, table) {
  const clock = new ManualClock(0);
  const limiter = createLimiter(table.algorithm, table.policy, { clock });
  const settled = [];
  const calls = [...table.calls];
  for (let t = 0; t <= table.until; t++) {
    if (t > 0) clock.advance(1);
    while (calls.length > 0 && calls[0].at <= t) {
      const call = calls.shift();
      if (call.kind === 'consume') limiter.consume('k', call.cost);
      else
        limiter.wait('k', call.cost).then(
          () => settled.push([call.name, clock.now()]),
          (error) => settled.push([call.name, `rejected: ${error?.message ?? error}`]),
        );
    }
    await flush();
  }
  const expected = table.calls.filter((call) => call.kind === 'wait').map((call) => [call.name, call.resolvesAt]);
  return same(settled, expected) ? undefined : `settled ${show(settled)}, expected ${show(expected)}`;
}

/** Lets promise reactions run: the clock fires timers synchronously, the awaiting code after. */
async function flush() {
  for (let i = 0; i < 20; i++) await null;
}

/** The object without its undefined fields (as the suite's toEqual compares). */
function defined(object) {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));
}

function same(a, b) {
  return show(a) === show(b);
}

/** A stable text of a value: keys sorted, Infinity written out. */
function show(value) {
  return JSON.stringify(value, (_key, v) =>
    v === Infinity ? 'Infinity' : v && typeof v === 'object' && !Array.isArray(v) ? sorted(v) : v,
  );
}

function sorted(object) {
  return Object.fromEntries(
    Object.keys(object)
      .sort()
      .map((key) => [key, object[key]]),
  );
}
