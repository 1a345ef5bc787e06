// ratelab's architecture, as rules that fail `npm test` (test/architecture.test.ts) when an
// import breaks it. Read top to bottom, it is the description of the layers:
//
//   bin/, src/cli/            the shell: parse flags, call, render; nothing imports it
//   src/report/               results rendered (may read sim/bench/attack types): text/ for the
//                             terminal (tables, charts, summaries), data/ (CSV, JSON,
//                             github-action-benchmark), html/ (the HTML report and its page
//                             script); what several kinds share sits at its root (io, output
//                             writing, rounding, run time, chart spans)
//   src/attack/, src/audit/,  the lab against live systems: HTTP load runner and its demo
//   src/race/                 API, the audit of a live limiter (probes and inference), the
//                             naive-vs-Lua Redis race (a demonstration, never library)
//   src/fidelity/             published claims checked by measurements (ratelab fidelity): runs
//                             the simulator, metrics and limiters; rendered by report
//   src/sim/                  replay on a virtual clock; distributed simulator
//   src/bench/                speed and memory measured in child processes (used by the
//                             bench command and by compare's speed figures)
//   src/metrics/              accuracy, windows, fairness of a replay
//   src/traffic/              seeded arrivals from a scenario or a trace
//   src/scenario/             scenario files: parse and validate
//   src/config/               YAML files of either side (tiers, scenarios): load and explain
//   library: src/core/ (what every backend shares: policy, decision, clock, duration, errors,
//            fail modes, typed arrays; it builds on nothing but src/algorithms/), src/algorithms/
//            (pure), src/memory/ (the memory limiter and its store), src/wait/ (waiting
//            for a slot over any limiter: wait, throttle), src/backend/ (the seam every
//            backend builds on: fail mode, deny cache, waiters), src/tiers/, src/redis/
//            (ratelab/redis), src/http/ (ratelab/http), src/fetch/ (ratelab/fetch: the Fetch API's
//            middleware over src/http/'s runtime-neutral decision), src/shared/ (ratelab/shared: threads and
//            cluster workers of one host). The core entry loads no lab layer
//            and no third-party module.
//   src/observability/        ratelab/metrics: a limiter's decision events as Prometheus series
//                             and OpenTelemetry instruments. It builds on src/core/ alone (the
//                             events' contract and the series' names) and its optional peers
//                             (prom-client, @opentelemetry/api); nothing but its entry and the
//                             CLI (serve --metrics) imports it.
//
// src/ holds the entry point src/index.ts and the folders named in FOLDERS below, nothing
// else: test/architecture.test.ts fails on a file or folder the list does not classify.
//
// The package's entry points (package.json "exports") are leaves nobody inside src/ imports:
//   src/index.ts (ratelab), src/tiers/index.ts, src/redis/index.ts, src/http/index.ts,
//   src/fetch/index.ts, src/shared/index.ts (the library's), src/lab/index.ts (ratelab/lab: the lab's layers for programs),
//   src/observability/index.ts (ratelab/metrics).
//
// Data flows scenario -> traffic -> sim -> algorithms -> metrics -> report, but imports
// point down this list: a module never imports one above it.
//
// Rules that the layout still breaks are listed in KNOWN_EXCEPTIONS below: one entry per
// offending import. test/architecture.test.ts checks the list is exact (every entry still
// needed), so it can only shrink.

/** rule name -> source files allowed to break it for now (none left). */
const KNOWN_EXCEPTIONS = {};

const withExceptions = process.env.RATELAB_ARCH_NO_EXCEPTIONS !== '1';
const except = (name) => (withExceptions ? (KNOWN_EXCEPTIONS[name] ?? []) : []);

/** A rule forbidding imports from `from` to `to` (path regexes), less its known exceptions. */
function forbid(name, comment, from, to) {
  return { name, comment, severity: 'error', from: { path: from, pathNot: except(name) }, to: { path: to } };
}

/** The lab's layers (src/config/ is neutral: tiers files and scenario files share it). */
const LAB_FOLDERS = [
  'scenario',
  'traffic',
  'sim',
  'metrics',
  'report',
  'cli',
  'bench',
  'attack',
  'audit',
  'race',
  'lab',
  'fidelity',
];
/**
 * The backends: limiters over a store other threads or processes share, each its own folder
 * building on the seam (src/backend/). A new backend is one more name here (docs/backends.md):
 * the rules below then keep it off the lab, off the other backends, and out of what lies
 * beneath it.
 */
const BACKEND_FOLDERS = ['redis', 'shared'];
/** The library's folders: what a user who only limits requests loads. */
const LIBRARY_FOLDERS = [
  'core',
  'algorithms',
  'memory',
  'wait',
  'backend',
  'tiers',
  ...BACKEND_FOLDERS,
  'http',
  'fetch',
];
/** ratelab/metrics' folder: beside the library, on src/core/ only. */
const OBSERVABILITY = 'observability';
/** Every folder of src/, each classified above or neutral (config). */
const FOLDERS = [...LIBRARY_FOLDERS, OBSERVABILITY, 'config', ...LAB_FOLDERS];
const LAB = `^src/(${LAB_FOLDERS.join('|')})/`;
const BACKENDS = `^src/(${BACKEND_FOLDERS.join('|')})/`;

/** Node's built-in modules, as dependency-cruiser names them (with or without `node:`). */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- this config is CommonJS
const { builtinModules } = require('node:module');
const NODE_BUILTIN = `^(node:)?(${builtinModules.map((name) => name.replace(/[/.]/g, '\\$&')).join('|')})$`;

/** The library's entry points' modules: the core's, and each backend's own `index.ts`. */
const LIBRARY_ENTRY = `^src/(index|(${['tiers', 'http', 'fetch', ...BACKEND_FOLDERS].join('|')})/index)\\.ts$`;
/** The entry points' modules. */
const ENTRY = `^src/(index|(${['tiers', 'http', 'fetch', 'lab', OBSERVABILITY, ...BACKEND_FOLDERS].join('|')})/index)\\.ts$`;

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'import cycles hide which layer owns what',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    forbid('only-cli-imports-cli', 'the CLI is the top: nothing else imports it', '^src/(?!cli/)', '^src/cli/'),
    forbid(
      'report-not-to-cli',
      'report renders results; the CLI calls it, not the reverse',
      '^src/report/',
      '^src/cli/',
    ),
    forbid(
      'lab-demos-not-up',
      'the attack runner, the audit and the race are called by the CLI and rendered by report',
      '^src/(attack|audit|race)/',
      '^src/(report|cli)/',
    ),
    forbid(
      'fidelity-not-up',
      'the claims suite measures; report renders it and the CLI calls it',
      '^src/fidelity/',
      '^src/(report|cli|attack|audit|race)/',
    ),
    forbid(
      'sim-not-up',
      'the simulator does not render, parse flags or drive live systems',
      '^src/sim/',
      '^src/(report|cli|attack|audit|race|fidelity)/',
    ),
    forbid(
      'bench-not-up',
      'the speed and memory harness measures a decider; it knows nothing of replays',
      '^src/bench/',
      '^src/(sim|report|cli|attack|audit|race|fidelity)/',
    ),
    forbid(
      'metrics-not-up',
      'metrics measure a replay; the simulator uses them, not the reverse',
      '^src/metrics/',
      '^src/(sim|bench|report|cli|attack|audit|race|fidelity)/',
    ),
    forbid(
      'traffic-not-up',
      'traffic generates arrivals; it knows nothing of replay or metrics',
      '^src/traffic/',
      '^src/(sim|metrics|report|cli|bench|http|attack|audit|race|fidelity)/',
    ),
    forbid(
      'scenario-not-up',
      'scenarios are parsed data; nothing downstream',
      '^src/(scenario|config)/',
      '^src/(traffic|sim|metrics|report|cli|bench|http|attack|audit|race|fidelity)/',
    ),
    forbid(
      'core-at-the-bottom',
      'src/core/ is what every backend shares: it builds on nothing of src/ but the pure algorithms',
      '^src/core/',
      '^src/(?!core/|algorithms/)',
    ),
    forbid(
      'algorithms-pure',
      'algorithms are pure: policy, options, the sliding log size rule, errors and typed-array helpers only',
      '^src/algorithms/',
      '^src/(?!algorithms/|core/policy\\.ts$|core/options\\.ts$|core/sliding-log-size\\.ts$|core/errors\\.ts$|core/typed-arrays\\.ts$)',
    ),
    forbid(
      'library-not-to-lab',
      'the library (core, memory limiter, tiers, ratelab/redis, ratelab/http, ratelab/shared) never loads the lab',
      `^src/(index\\.ts$|${LIBRARY_FOLDERS.join('/|')}/)`,
      LAB,
    ),
    forbid(
      'memory-not-to-redis',
      'the memory limiter and store, and the waiting both use, never import the Redis code (the Redis code may use the memory limiter as its local fallback)',
      '^src/(memory/|wait/|algorithms/)',
      '^src/redis/',
    ),
    forbid(
      'shared-not-to-redis-http',
      'ratelab/shared builds on the memory limiter and the algorithms, never on the Redis or HTTP code',
      '^src/shared/',
      '^src/(redis|http)/',
    ),
    forbid(
      'seam-builds-on-core',
      'the backend seam (src/backend/) builds on core, the waiting and the memory limiter (the local fail mode) only',
      '^src/backend/',
      '^src/(?!backend/|core/|wait/|memory/|algorithms/)',
    ),
    forbid(
      'backends-not-below',
      'what the backends build on (core, algorithms, memory, wait, the seam, tiers, http) never imports a backend',
      '^src/(index\\.ts$|core/|algorithms/|memory/|wait/|backend/|tiers/|http/|fetch/)',
      BACKENDS,
    ),
    {
      name: 'backends-independent',
      comment: 'a backend builds on the seam and core, never on another backend',
      severity: 'error',
      from: { path: BACKENDS, pathNot: except('backends-independent') },
      to: { path: BACKENDS, pathNot: '^src/$1/' },
    },
    forbid(
      'library-not-to-shared',
      'the rest of the library never loads ratelab/shared (the lab may, to bench it)',
      '^src/(index\\.ts$|core/|memory/|wait/|algorithms/|tiers/|redis/|http/|fetch/)',
      '^src/shared/',
    ),
    forbid(
      'store-below-limiter',
      'the memory store sits below the limiter that uses it',
      '^src/memory/(?!limiter\\.ts$)',
      '^src/memory/limiter\\.ts$',
    ),
    forbid(
      'meter-helpers-stay-in-algorithms',
      "algorithms/meter.ts is the algorithms' own; shared column helpers live in src/core/typed-arrays.ts",
      '^src/(?!algorithms/)',
      '^src/algorithms/meter\\.ts$',
    ),
    forbid(
      'observability-builds-on-core',
      'ratelab/metrics reads the events and series names of src/core/, nothing else of src/',
      `^src/${OBSERVABILITY}/`,
      `^src/(?!${OBSERVABILITY}/|core/)`,
    ),
    forbid(
      'observability-only-through-its-entry',
      'ratelab/metrics is a leaf of the package: nothing inside src/ imports it but the CLI, the top (serve --metrics)',
      `^src/(?!${OBSERVABILITY}/|cli/)`,
      `^src/${OBSERVABILITY}/`,
    ),
    forbid(
      'observability-loads-only-its-peers',
      'ratelab/metrics needs no package but its optional peers, prom-client and @opentelemetry/api',
      `^src/${OBSERVABILITY}/`,
      'node_modules/(?!prom-client/|@opentelemetry/api/)',
    ),
    forbid(
      'entries-not-imported',
      'an entry point only re-exports; code imports the module that defines a name',
      '^src/',
      ENTRY,
    ),
    forbid(
      'commands-independent',
      'commands share helpers through cli/ modules, not through each other',
      '^src/cli/commands/',
      '^src/cli/commands/',
    ),
    {
      name: 'core-loads-no-lab-redis-http',
      comment: 'import("ratelab") loads the limiter library only (not ratelab/metrics either)',
      severity: 'error',
      from: { path: '^src/index\\.ts$' },
      to: {
        path: '^src/(redis|http|observability|scenario|traffic|sim|metrics|report|cli|bench|attack|audit|race|lab|fidelity)/',
        reachable: true,
      },
    },
    {
      name: 'core-loads-no-package',
      comment:
        'import("ratelab"), import("ratelab/http"), import("ratelab/fetch") and import("ratelab/shared") load no third-party module',
      severity: 'error',
      from: { path: '^src/(index|http/index|fetch/index|shared/index)\\.ts$' },
      to: { path: 'node_modules/', reachable: true },
    },
    {
      name: 'fetch-loads-no-node-builtin',
      comment:
        'import("ratelab/fetch") runs on workerd, Deno and Bun: no node: module on its path, type-only imports included (the built bundles are walked too, test/fetch/bundle-imports.test.ts)',
      severity: 'error',
      from: { path: '^src/fetch/index\\.ts$' },
      to: { path: NODE_BUILTIN, reachable: true },
    },
    {
      name: 'fetch-not-below',
      comment: 'ratelab/fetch is an adapter beside ratelab/http: nothing of the library below imports it',
      severity: 'error',
      from: { path: '^src/(?!fetch/)' },
      to: { path: '^src/fetch/' },
    },
    {
      name: 'library-entries-no-lab-demos',
      comment: 'the naive limiter and the race are lab demonstrations, never library code',
      severity: 'error',
      from: { path: LIBRARY_ENTRY },
      to: { path: '^src/race/', reachable: true },
    },
  ],
  options: {
    // Type-only imports count: a layer that names another's types depends on it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.lua$' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};

// For test/architecture.test.ts, which checks every known exception is still needed. Not
// enumerable: dependency-cruiser refuses keys it does not know.
Object.defineProperty(module.exports, 'knownExceptions', { value: KNOWN_EXCEPTIONS, enumerable: false });
Object.defineProperty(module.exports, 'folders', { value: FOLDERS, enumerable: false });
