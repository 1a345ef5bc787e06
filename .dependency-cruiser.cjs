// ratelab's architecture, as rules that fail `npm test` (test/architecture.test.ts) when an
// import breaks it. Read top to bottom, it is the description of the layers:
//
//   bin/, src/cli/            the shell: parse flags, call, render; nothing imports it
//   src/report/               tables, charts, CSV, JSON of results (may read sim/bench/http types)
//   src/sim/                  replay on a virtual clock; distributed simulator
//   src/metrics/              accuracy, windows, fairness, throughput of a decider
//   src/traffic/              seeded arrivals from a scenario or a trace
//   src/scenario/, config/    scenario files: parse and validate
//   library: src/*.ts (limiter, policy, clock, errors, duration), src/algorithms/ (pure),
//            the memory store, src/tiers/; src/store/redis/ (ratelab/redis), src/http/
//            (ratelab/http). The core entry loads no lab layer and no third-party module.
//
// Data flows scenario -> traffic -> sim -> algorithms -> metrics -> report, but imports
// point down this list: a module never imports one above it.
//
// Rules that today's layout still breaks are listed in KNOWN_EXCEPTIONS below: one entry per
// offending import, each removed by issue 10's moves. test/architecture.test.ts checks the
// list is exact (every entry still needed), so it can only shrink.

/** rule name -> source files allowed to break it for now (issue 10 removes each). */
const KNOWN_EXCEPTIONS = {
  // CommandIO moves from src/cli/io.ts to a neutral src/io.ts.
  'report-not-to-cli': ['^src/report/color\\.ts$', '^src/report/write-output\\.ts$'],
  'only-cli-imports-cli': ['^src/report/color\\.ts$', '^src/report/write-output\\.ts$'],
  // Contender/Decider types move down (metrics/decider.ts) or throughput moves to sim/bench.
  'metrics-not-to-sim': ['^src/metrics/throughput\\.ts$'],
  // grow/floorDiv move from algorithms/meter.ts to a neutral src/typed-arrays.ts.
  'meter-helpers-stay-in-algorithms': ['^src/store/lru-list\\.ts$', '^src/store/slot-table\\.ts$', '^src/metrics/window-ledger\\.ts$'],
  // The memory store and the Redis limiters share src/store/ while the limiter imports the
  // one and the others import the limiter: src/memory/ and src/redis/ end that.
  'store-not-to-limiter': ['^src/store/redis/redis-limiter\\.ts$', '^src/store/redis/approximate-limiter\\.ts$'],
  // src/index.ts re-exports everything today; issue 10 makes it the core entry.
  'library-not-to-lab': ['^src/index\\.ts$'],
  // Shared command helpers move from commands/compare.ts to a cli/ helper module.
  'commands-independent': ['^src/cli/commands/attack\\.ts$', '^src/cli/commands/distributed\\.ts$'],
};
/** Third-party packages the core entry still reaches, by a type-only import of
 * tiers/load-tiers.ts (TierSpec, TiersConfig): moved to a runtime-free tiers/types.ts. */
const CORE_KNOWN_PACKAGES = ['node_modules/yaml/', 'node_modules/zod/'];

const withExceptions = process.env.RATELAB_ARCH_NO_EXCEPTIONS !== '1';
const except = (name) => (withExceptions ? KNOWN_EXCEPTIONS[name] ?? [] : []);

/** A rule forbidding imports from `from` to `to` (path regexes), less its known exceptions. */
function forbid(name, comment, from, to) {
  return { name, comment, severity: 'error', from: { path: from, pathNot: except(name) }, to: { path: to } };
}

/** The lab's layers (src/config/ is neutral: tiers files and scenario files share it). */
const LAB = '^src/(scenario|traffic|sim|metrics|report|cli|bench)/';

module.exports = {
  forbidden: [
    { name: 'no-circular', comment: 'import cycles hide which layer owns what', severity: 'error', from: {}, to: { circular: true } },
    forbid('only-cli-imports-cli', 'the CLI is the top: nothing else imports it', '^src/(?!cli/)', '^src/cli/'),
    forbid('report-not-to-cli', 'report renders results; the CLI calls it, not the reverse', '^src/report/', '^src/cli/'),
    forbid('metrics-not-to-sim', 'metrics measure a decider; the simulator uses them, not the reverse', '^src/metrics/', '^src/(sim|report|cli)/'),
    forbid('sim-not-up', 'the simulator does not render or parse flags', '^src/sim/', '^src/(report|cli|bench)/'),
    forbid('traffic-not-up', 'traffic generates arrivals; it knows nothing of replay or metrics', '^src/traffic/', '^src/(sim|metrics|report|cli|bench|http)/'),
    forbid('scenario-not-up', 'scenarios are parsed data; nothing downstream', '^src/(scenario|config)/', '^src/(traffic|sim|metrics|report|cli|bench|http)/'),
    forbid('algorithms-pure', 'algorithms are pure: policy and errors only', '^src/algorithms/', '^src/(?!algorithms/|policy\\.ts$|errors\\.ts$)'),
    forbid('library-not-to-lab', 'the library (core, memory store, tiers, ratelab/redis, ratelab/http middleware) never loads the lab', '^src/([^/]+\\.ts$|store/|tiers/|http/(middleware|headers|client-address|fastify)\\.ts$)', LAB),
    forbid('memory-not-to-redis', 'the memory limiter and store never import the Redis code (the Redis code may use the memory limiter as its local fallback)', '^src/(limiter\\.ts$|algorithms/|store/[^/]+\\.ts$)', '^src/store/redis/'),
    forbid('store-not-to-limiter', 'the store sits below the limiter that uses it', '^src/store/', '^src/limiter\\.ts$'),
    forbid('meter-helpers-stay-in-algorithms', 'grow/floorDiv belong in a neutral module, not in the algorithms', '^src/(?!algorithms/)', '^src/algorithms/meter\\.ts$'),
    forbid('commands-independent', 'commands share helpers through cli/ modules, not through each other', '^src/cli/commands/', '^src/cli/commands/'),
    {
      name: 'core-loads-no-lab-redis-http',
      comment: 'import("ratelab") loads the limiter library only',
      severity: 'error',
      from: { path: '^src/entries/core\\.ts$' },
      to: { path: '^src/(store/redis|http|scenario|traffic|sim|metrics|report|cli|bench)/', reachable: true },
    },
    {
      name: 'core-loads-no-package',
      comment: 'import("ratelab") loads no third-party module',
      severity: 'error',
      from: { path: '^src/entries/core\\.ts$' },
      to: { path: 'node_modules/', pathNot: withExceptions ? CORE_KNOWN_PACKAGES : [], reachable: true },
    },
    {
      name: 'library-entries-no-lab-demos',
      comment: 'the naive limiter and the race are lab demonstrations, never library code',
      severity: 'error',
      from: { path: '^src/entries/(core|redis|http)\\.ts$' },
      to: { path: '^src/store/redis/(naive|race)\\.ts$', reachable: true },
    },
  ],
  options: {
    // Type-only imports count: a layer that names another's types depends on it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.lua$' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};

// For test/architecture.test.ts, which checks every known exception is still needed. Not
// enumerable: dependency-cruiser refuses keys it does not know.
Object.defineProperty(module.exports, 'knownExceptions', { value: { ...KNOWN_EXCEPTIONS, 'core-loads-no-package': CORE_KNOWN_PACKAGES }, enumerable: false });
