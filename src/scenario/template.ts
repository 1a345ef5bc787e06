/**
 * A commented example scenario (`ratelab scenarios --template`): every field with what it
 * takes, every kind of source once. It loads and validates as it is (a test checks), so
 * it can be copied and edited. The first line points a YAML language server at the
 * JSON Schema shipped with the package, for completion and checks in an editor.
 */
export const SCENARIO_TEMPLATE = `# yaml-language-server: $schema=./node_modules/ratelab/scenarios/scenario.schema.json
# A ratelab scenario: run it with \`npx ratelab compare this-file.yaml\`.
name: my-scenario              # lower-case letters, digits, dashes
description: One line saying what it teaches.
policy: { limit: 100, window: 1s }   # burst: N too, for token-bucket and gcra only
duration: 10s                  # arrivals at or after this are not generated
seed: 42                       # the same seed gives the same arrivals and decisions
bucket: 100ms                  # timeline bucket (default: duration / 60)
sources:                       # sources compose: their arrivals are merged by time
  - kind: steady               # evenly spaced; also: poisson
    rate: 50/s                 # a number (per second), or N/ms, N/s, N/m, N/h
    start: 0                   # optional, default 0; end: optional, default duration
    keys: alice                # one key by name (default: client) ...
    cost: 1                    # units per request (default 1)
    label: user                # optional: rows count offered, admitted, false-/+ per label
  - kind: burst
    at: 999ms
    count: 100
    spread: 0                  # spread the burst evenly over this long (default 0)
    every: 3s                  # repeat (optional); times: how often (default: until the end)
    keys: alice                # the same key as the user: they share its quota
    label: attacker
  - kind: onoff                # Poisson at \`rate\` while on; Pareto-distributed period lengths
    rate: 300/s
    on: { alpha: 1.5, min: 200ms }
    off: { alpha: 1.2, min: 400ms }
    keys: { count: 1000, prefix: "user:", pick: zipf, exponent: 1.0 }   # ... or a key set: round-robin | uniform | zipf
  - kind: retry                # a closed loop of clients, one request outstanding each
    clients: 50
    ramp: 200ms                # first requests spread uniformly over this long
    think: 2s                  # wait after an admission (or giving up) before the next request
    jitter: 1.0                # a denied client waits Retry-After x (1 + jitter x U[0,1))
    maxRetries: 20             # then gives up that request
    keys: tenant
  - kind: retry                # clients that ignore Retry-After and back off exponentially
    clients: 50
    think: 2s
    keys: tenant
    honourRetryAfter: false    # (default true; backoff is also used when no Retry-After is given)
    backoff: { base: 100ms, cap: 10s, jitter: full }   # jitter: none | full | equal | decorrelated
  - kind: retry                # clients sending through the adaptive client (adaptiveThrottle)
    clients: 50
    think: 2s
    keys: tenant
    client: adaptive           # paused on Retry-After, restarted paced, AIMD on denials
`;
