import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import {
  StoreLimiter,
  type LimiterStore,
  type StoreContext,
  type StoreLimiterOptions,
  type StoreRateLimiter,
} from '../backend/store-limiter.js';
import type { Clock, ClockSource } from '../core/clock.js';
import type { DecisionReason, FailMode, ReasonedDecision } from '../core/fail-over.js';
import { checkAlgorithm } from '../core/names.js';
import { invalidOption, positiveMsOption } from '../core/options.js';
import { combineDecisions, type LimitDecision } from '../core/decision.js';
import { floorDiv } from '../core/typed-arrays.js';
import type { Algorithm, NamedLimits, PolicyInput } from '../core/policy.js';
import { ScriptBatcher, unexpectedReply } from './batcher.js';
import { CIRCUIT_OPEN, NodeBreakers } from './node-breaker.js';
import { redisKeyOf, type RedisKey } from './redis-key.js';
import {
  acknowledgedScriptClient,
  isRedisClient,
  scriptClient,
  type RedisClient,
  type ScriptClient,
} from './run-script.js';
import {
  COMPOSITE_BUCKET_WIDTH,
  compositeLayout,
  compositeScript,
  limiterScript,
  replyOffsets,
  replyWidths,
  type LuaScript,
} from './scripts.js';
import { DeadlineQueue } from './timeout.js';

/** What the limiter does when Redis fails or does not answer within `timeoutMs`. */
export type { FailMode } from '../core/fail-over.js';

/**
 * Why a decision is what it is (see {@link DecisionReason}): Redis decided (`redis`), a
 * denial Redis gave earlier was reused (`deny-cache`), the Redis node serving the key failed
 * and the fail mode decided (`fail-open`, `fail-closed`, `local-fallback`), or the key's own
 * state is unusable (`key-error`: WRONGTYPE, a value the script cannot parse; decided by the
 * fail mode, see `error`).
 */
export type { DecisionReason } from '../core/fail-over.js';

/** A {@link Decision} that says where it came from; with `key-error`, `error` is Redis's message. */
export type RedisDecision = ReasonedDecision<Exclude<DecisionReason, 'primary' | 'store'>>;

/** Options of {@link createRedisLimiter}: the seam's (fail mode, deny cache, clock) and Redis's own. */
export interface RedisLimiterOptions extends StoreLimiterOptions {
  /**
   * An ioredis `Redis` or `Cluster` client, or a node-redis v5 `createClient()` or
   * `createCluster()` client (connected), used as is (see `connectRedis` for bounded settings).
   */
  redis: RedisClient;
  /**
   * Prepended to every key (default `ratelab:`). With several limits, a `{` in it must open
   * a non-empty `{hash tag}` closed within it (else a key's limits would hash to different slots).
   */
  prefix?: string;
  /** The most a call waits for Redis, in ms (default 50); then the fail mode decides. */
  timeoutMs?: number;
  /** `open` admits, `closed` denies, `local` decides in memory (default `open`). */
  failMode?: FailMode;
  /** With `failMode: 'local'` (required there): the node count N; each node allows `limit / N`. */
  expectedNodes?: number;
  /** Cache denials in process (`true`: up to 10 000 keys). */
  denyCache?: boolean | { maxKeys?: number };
  /**
   * Decide at this clock's time instead of the Redis server's (for virtual-clock runs and
   * tests). In production leave it unset: one server clock cannot be skewed between app
   * servers, which their own clocks can.
   */
  clock?: ClockSource;
  /**
   * A floor on key TTLs in ms: default 0 with the server's time, 60 000 with `clock`,
   * because Redis expires keys on its own real-time clock, which a virtual clock may lag.
   */
  minTtlMs?: number;
  /**
   * After a failure of a Redis node, that node is asked again (one probe call) only after
   * this many ms (default 250); keys on other nodes are not affected.
   */
  retryRedisAfterMs?: number;
  /**
   * Batch the calls of one event-loop turn into one script call per hash slot (default
   * `true`: at most 64 keys per call). `false` sends each call alone. `split` (default
   * true): when none of the limiter's script calls is in flight, a turn's calls (8 or
   * more) go as two script calls, so Redis runs one while this process reads the other's
   * replies.
   */
  batch?: boolean | { maxKeys?: number; split?: boolean };
  /**
   * After each script call, `WAIT wait timeoutMs` (pipelined behind it, one round trip):
   * an admission fewer than `wait` replicas acknowledged within `timeoutMs` (a whole
   * number of ms, below the limiter's `timeoutMs`) is decided by the fail mode instead, so
   * a failover to a replica cannot lose an admission Redis reported. Pair it with
   * `failMode: 'closed'` to never admit beyond the limit. Single servers and Sentinel
   * clients (not a Cluster client). Default: no WAIT (replication is asynchronous).
   */
  replicas?: { wait: number; timeoutMs: number };
  /**
   * Delete a key of this limiter that holds the wrong type or a value that does not parse,
   * and decide as if it did not exist (default false: the key's calls are decided by the
   * fail mode with reason `key-error` until someone fixes or deletes it).
   */
  repairKeys?: boolean;
}

/**
 * A rate limiter whose state lives in Redis, shared by every process that uses it: the
 * seam's limiter (`consume`, `allow`, `wait`, `reset`, with promises). `consume` always
 * resolves within about `timeoutMs` (it rejects only on a bad cost), its `reason` saying who
 * decided; `reset` resolves whether Redis held the key and rejects when Redis does not
 * answer within `timeoutMs`; `failMode` is the option, which the HTTP middleware reads too.
 */
export interface RedisRateLimiter extends StoreRateLimiter<RedisDecision> {
  /**
   * The Redis key holding `key`'s state: the prefix and `key`, a string; or, when `key`
   * holds a lone surrogate (which UTF-8 would turn into U+FFFD, merging keys), a Buffer of
   * their WTF-8 bytes, so that every key has a Redis key of its own.
   */
  redisKey(key: string): RedisKey;
  /**
   * The Redis keys holding `key`'s state (one for a single policy: `redisKey(key)`). With
   * several limits: one holding every limit but the sliding logs (packed in one value), then
   * one per sliding log, in the list's order; they share a hash tag, so one slot.
   */
  redisKeys(key: string): RedisKey[];
  /**
   * The Redis nodes whose circuit breaker is open now (their keys go to the fail mode without
   * a call until a probe succeeds): `server` for a single server, a Cluster node's
   * `host:port`. ratelab/metrics reads it for `ratelab_redis_breaker_open`.
   */
  openBreakers(): string[];
}

const DEFAULT_TIMEOUT_MS = 50;
const DEFAULT_RETRY_REDIS_AFTER_MS = 250;
const DEFAULT_BATCH_KEYS = 64;
const VIRTUAL_CLOCK_MIN_TTL_MS = 60_000;

// The tag names the state's layout as well as the algorithm: the buckets' tags became tb2
// and gcra2 when their state went from text to packed doubles, so a deploy never reads a
// state of the other layout (it would be a key error until the key expired); it starts
// those keys afresh, as a policy change does.
const KEY_TAG: Record<Algorithm, string> = {
  'token-bucket': 'tb2',
  gcra: 'gcra2',
  'sliding-log': 'log',
  'sliding-counter': 'sc',
  'fixed-window': 'fw',
};

/**
 * Creates a limiter of `algorithm` enforcing `policy` across every process sharing the
 * Redis server (or cluster): one atomic Lua script per decision, touching one key; with a
 * list of limits, one key for them all (and one per sliding log), all decided in that one
 * script call (admitted only if every limit admits, then every limit takes; a denial writes
 * nothing). Its decisions are
 * the memory limiter's, number for number. Throws like `createLimiter`, and
 * `INVALID_ARGUMENT` for bad options.
 */
export function createRedisLimiter(
  algorithm: Algorithm,
  policy: PolicyInput,
  options: RedisLimiterOptions,
): RedisRateLimiter {
  const checked = checkAlgorithm(algorithm);
  if (typeof options !== 'object' || options === null || !isRedisClient(options.redis)) {
    throw invalidOption('redis', 'expected an ioredis or node-redis client (single or Cluster)', options?.redis);
  }
  return new RedisLimiter(checked, policy, options);
}

/** The Redis backend on the seam: the store is {@link RedisStore}; the limiter adds `redisKey`. */
class RedisLimiter extends StoreLimiter<RedisDecision, RedisStore> implements RedisRateLimiter {
  constructor(algorithm: Algorithm, policy: PolicyInput, options: RedisLimiterOptions) {
    super(algorithm, policy, options, (context) => new RedisStore(context, options));
  }

  redisKey(key: string): RedisKey {
    return this.store.redisKey(key);
  }

  redisKeys(key: string): RedisKey[] {
    return this.store.redisKeys(key);
  }

  openBreakers(): string[] {
    return this.store.openBreakers();
  }
}

/** Keys' state in Redis, one atomic script per decision (batched per event-loop turn), a breaker per node. */
class RedisStore implements LimiterStore<RedisDecision> {
  readonly retryAfterMs: number;
  private readonly client: ScriptClient;
  private readonly batcher: ScriptBatcher;
  /** The one-key script of `batch: false` (undefined when batching). */
  private readonly single: LuaScript | undefined;
  private readonly breakers: NodeBreakers;
  private readonly keyPrefix: string;
  /**
   * With several limits, each of a key's Redis keys up to the key itself (which a `}`
   * follows), in the script's order (compositePrefixes); empty for one limit.
   */
  private readonly limitPrefixes: string[];
  /** With several limits, how many reply numbers each answers with, and where each one's start (scripts.ts's replyWidths). */
  private readonly replyWidths: number[];
  private readonly replyOffsets: number[];
  /** With several limits, the reply numbers per key: the sum of `replyWidths`. */
  private readonly replyStride: number;
  private readonly deadlines: DeadlineQueue;
  private readonly clock: Clock | undefined;

  constructor(
    private readonly context: StoreContext,
    options: RedisLimiterOptions,
  ) {
    const { algorithm, limits, policies } = context;
    const timeoutMs = positiveMsOption(options.timeoutMs, 'timeoutMs', DEFAULT_TIMEOUT_MS);
    this.client = clientOf(options.redis, options.replicas, timeoutMs);
    const prefix = options.prefix ?? 'ratelab:';
    this.keyPrefix = `${prefix}${KEY_TAG[algorithm]}:${limits.limit}:${limits.windowMs}:${limits.capacity}:`;
    this.limitPrefixes = policies.length === 1 ? [] : compositePrefixes(prefix, policies);
    this.replyWidths = policies.length === 1 ? [] : replyWidths(policies);
    this.replyOffsets = replyOffsets(this.replyWidths);
    this.replyStride = this.replyWidths.reduce((sum, width) => sum + width, 0);
    this.deadlines = new DeadlineQueue(timeoutMs);
    this.retryAfterMs = positiveMsOption(options.retryRedisAfterMs, 'retryRedisAfterMs', DEFAULT_RETRY_REDIS_AFTER_MS);
    this.clock = context.clock;
    const minTtlMs = options.minTtlMs ?? (this.clock ? VIRTUAL_CLOCK_MIN_TTL_MS : 0);
    if (!Number.isInteger(minTtlMs) || minTtlMs < 0)
      throw invalidOption('minTtlMs', 'expected a whole number of ms >= 0', minTtlMs);
    const repair = options.repairKeys === true;
    const { maxKeys, split } = batchOptionsOf(options.batch);
    const parts = policies.length;
    // A composite's call takes a key per sliding log and one for its other limits, so fewer
    // calls may fit a batch of `maxKeys` keys.
    this.batcher =
      parts === 1
        ? new ScriptBatcher(
            this.client,
            limiterScript(algorithm, limits, minTtlMs, repair),
            this.deadlines,
            maxKeys,
            split,
          )
        : new ScriptBatcher(
            this.client,
            compositeScript(policies, minTtlMs, repair),
            this.deadlines,
            Math.max(1, Math.floor(maxKeys / this.limitPrefixes.length)),
            split,
            this.replyStride,
          );
    this.single =
      maxKeys === 1 && parts === 1 ? limiterScript(algorithm, limits, minTtlMs, repair, 'single') : undefined;
    this.breakers = new NodeBreakers(this.retryAfterMs);
  }

  openBreakers(): string[] {
    return this.breakers.openNodes();
  }

  redisKey(key: string): RedisKey {
    if (this.limitPrefixes.length > 0) return redisKeyOf(`${this.limitPrefixes[0] as string}${key}}`);
    return redisKeyOf(this.keyPrefix + key);
  }

  redisKeys(key: string): RedisKey[] {
    if (this.limitPrefixes.length === 0) return [this.redisKey(key)];
    return this.limitPrefixes.map((prefix) => redisKeyOf(`${prefix}${key}}`));
  }

  decide(key: string, cost: number): Promise<RedisDecision> {
    const cached = this.context.cached(key, cost);
    if (cached) return Promise.resolve(cached);
    const redisKey = this.limitPrefixes.length <= 1 ? this.redisKey(key) : this.redisKeys(key);
    const slot = this.client.slotOf(Array.isArray(redisKey) ? (redisKey[0] as RedisKey) : (redisKey as RedisKey));
    const node = this.client.nodeOf(slot);
    if (!this.breakers.allow(node, performance.now())) return Promise.resolve(this.shortCircuited(key, cost, node));
    const now = this.clock ? String(this.clock()) : '';
    if (this.single !== undefined) return this.decideAlone(this.single, key, redisKey as RedisKey, cost, node, now);
    // A callback object rather than promise chains or async frames: this runs once per
    // request, and those were a measurable share of the client's CPU per decision
    // (bench/redis-throughput.ts).
    return new Promise((resolve) => {
      this.batcher.submit(slot, {
        key: redisKey,
        cost: String(cost),
        now,
        answer: (replies, at) => resolve(this.answered(key, cost, node, replies, at)),
        fail: (error) => resolve(this.failed(key, cost, node, error)),
      });
    });
  }

  /**
   * One call, one script call: without the batcher's queue and arrays, the arguments only
   * the cost and a caller's time (measured: bench/redis-throughput.ts, docs/redis.md).
   */
  private decideAlone(
    script: LuaScript,
    key: string,
    redisKey: RedisKey,
    cost: number,
    node: string,
    now: string,
  ): Promise<RedisDecision> {
    const args = now === '' ? [String(cost)] : [String(cost), now];
    return this.deadlines.run(this.client.run(script, [redisKey], args)).then(
      (reply) => {
        if (Array.isArray(reply) && reply.length === 4) return this.answered(key, cost, node, reply, 0);
        return this.failed(key, cost, node, unexpectedReply(reply));
      },
      (error: unknown) => this.failed(key, cost, node, error),
    );
  }

  /** The fail mode's decision after a failed call to `node`, which counts against its breaker. */
  private failed(key: string, cost: number, node: string, error: unknown): RedisDecision {
    const cause = error instanceof Error ? error.message : String(error);
    this.breakers.failed(node, performance.now(), cause);
    this.client.nodeFailed(node);
    return this.context.unavailable(key, cost, cause);
  }

  /** The fail mode's decision while `node`'s breaker is open: no call is sent; `error` names what opened it. */
  private shortCircuited(key: string, cost: number, node: string): RedisDecision {
    const cause = this.breakers.causeOf(node) ?? 'a call failed';
    return this.context.unavailable(key, cost, CIRCUIT_OPEN + cause);
  }

  /** The decision in `replies[at..at+3]` (with several limits, their replyWidths' entries); a key error there is decided by the fail mode. */
  private answered(key: string, cost: number, node: string, replies: readonly unknown[], at: number): RedisDecision {
    this.breakers.succeeded(node);
    if (this.limitPrefixes.length > 0) return this.combined(key, cost, node, replies, at);
    const allowed = replies[at];
    if (typeof allowed === 'string') return this.context.keyError(key, cost, allowed);
    if (!fourNumbers(replies, at)) return this.failed(key, cost, node, unexpectedReply(replies.slice(at, at + 4)));
    const retryAfterMs = replies[at + 2] as number;
    const decision: RedisDecision = {
      allowed: allowed === 1,
      limit: this.context.limits.capacity,
      remaining: replies[at + 1] as number,
      retryAfterMs: retryAfterMs === -1 ? Infinity : retryAfterMs,
      resetMs: replies[at + 3] as number,
      reason: 'redis',
    };
    return this.context.decided(key, cost, decision);
  }

  /** The decision of several limits from each one's entries at `replies[at..]` (replyWidths), combined by the one rule. */
  private combined(key: string, cost: number, node: string, replies: readonly unknown[], at: number): RedisDecision {
    const first = replies[at];
    if (typeof first === 'string') return this.context.keyError(key, cost, first);
    const { policies } = this.context;
    const limits: LimitDecision[] = [];
    let allowed = true;
    for (let j = 0; j < policies.length; j++) {
      const entry = policies[j] as NamedLimits;
      const from = at + (this.replyOffsets[j] as number);
      const part =
        this.replyWidths[j] === COMPOSITE_BUCKET_WIDTH
          ? bucketAnswer(entry, replies, from, cost)
          : limitDecision(entry, replies, from);
      if (part === undefined)
        return this.failed(key, cost, node, unexpectedReply(replies.slice(at, at + this.replyStride)));
      allowed &&= part.allowed;
      limits.push(part);
    }
    // combineDecisions' object is fresh: `reason` goes on it, without copying it.
    const decision = combineDecisions(allowed, limits) as RedisDecision;
    decision.reason = 'redis';
    return this.context.decided(key, cost, decision);
  }

  async reset(key: string): Promise<boolean> {
    const keys = this.redisKeys(key);
    return Number(await this.deadlines.run(this.client.del(keys.length === 1 ? (keys[0] as RedisKey) : keys))) > 0;
  }
}

/**
 * A composite's Redis keys up to the key itself, in the script's order (compositeLayout):
 * one for every limit but the sliding logs, packed in one value, `{prefix}pack:{digest}{:`,
 * then one per sliding log, `{prefix}log:{limit}:{windowMs}:{capacity}:{name}{:`, the key
 * and `}` following each. The digest names the packed limits (each one's algorithm,
 * policy and name, in order; {@link packedDigest}), so a change to any starts that value
 * afresh, as a policy change does a single limit's key, in a name as short as a single
 * limit's: a decision's time in Redis grows with the length of its key. The braces make
 * `:` and the key the hash tag of every one (never empty, whatever the key), so Redis
 * Cluster keeps them in one slot. A `{` in the prefix would take the tag's place: it must
 * close a non-empty tag within the prefix.
 */
function compositePrefixes(prefix: string, policies: readonly NamedLimits[]): string[] {
  const open = prefix.indexOf('{');
  if (open >= 0 && prefix.indexOf('}', open + 1) <= open + 1) {
    throw invalidOption(
      'prefix',
      "with several limits a '{' must open a non-empty {hash tag} closed within the prefix, or a key's limits would hash to different Cluster slots",
      prefix,
    );
  }
  const { order, slots } = compositeLayout(policies);
  const limitsAt = (places: readonly number[]) => places.map((place) => policies[place] as NamedLimits);
  const packed = limitsAt(order.slice(0, slots.length));
  const logs = limitsAt(order.slice(slots.length)).map((l) => `${prefix}${limitName(l)}{:`);
  return packed.length === 0 ? logs : [`${prefix}pack:${packedDigest(packed)}{:`, ...logs];
}

/** A limit as its own key names it: `{tag}:{limit}:{windowMs}:{capacity}:{name}`. */
function limitName(l: NamedLimits): string {
  return `${KEY_TAG[l.algorithm]}:${l.limit}:${l.windowMs}:${l.capacity}:${l.name}`;
}

/**
 * The packed value's name for `limits`: the first 12 hex digits (48 bits) of the SHA-1 of
 * their names (limitName), comma-separated, in order (`docs/redis.md` shows how to
 * compute it).
 */
function packedDigest(limits: readonly NamedLimits[]): string {
  return createHash('sha1').update(limits.map(limitName).join(',')).digest('hex').slice(0, 12);
}

/** One limit's answer from its 4 reply entries at `replies[at]`, or undefined when they are not 4 numbers. */
function limitDecision(entry: NamedLimits, replies: readonly unknown[], at: number): LimitDecision | undefined {
  if (!fourNumbers(replies, at)) return undefined;
  const retryAfterMs = replies[at + 2] as number;
  return {
    name: entry.name,
    allowed: replies[at] === 1,
    limit: entry.capacity,
    remaining: replies[at + 1] as number,
    retryAfterMs: retryAfterMs === -1 ? Infinity : retryAfterMs,
    resetMs: replies[at + 3] as number,
  };
}

/**
 * A bucket's answer in a composite (token bucket, GCRA) from its 2 reply entries at
 * `replies[at]`: whether it admitted, and the units it holds in use after the decision
 * (fixed point: a request of `cost` is `cost * windowMs` units, `capacity * windowMs` the
 * most, each ms frees `limit`), worked out as the Lua bodies do for one limit. Undefined
 * when they are not 2 numbers.
 */
function bucketAnswer(
  entry: NamedLimits,
  replies: readonly unknown[],
  at: number,
  cost: number,
): LimitDecision | undefined {
  const flag = replies[at];
  const used = replies[at + 1];
  if (typeof flag !== 'number' || typeof used !== 'number') return undefined;
  const { limit, windowMs, capacity } = entry;
  const full = capacity * windowMs;
  const allowed = flag === 1;
  let retryAfterMs = 0;
  if (cost > capacity) retryAfterMs = Infinity;
  else if (!allowed) retryAfterMs = Math.ceil((used + cost * windowMs - full) / limit);
  return {
    name: entry.name,
    allowed,
    limit: capacity,
    remaining: floorDiv(full - used, windowMs),
    retryAfterMs,
    resetMs: Math.ceil(used / limit),
  };
}

/** Whether `replies[at..at+3]` are a decision's 4 numbers (allowed, remaining, retryAfterMs with -1 for never, resetMs). */
function fourNumbers(replies: readonly unknown[], at: number): boolean {
  return (
    typeof replies[at] === 'number' &&
    typeof replies[at + 1] === 'number' &&
    typeof replies[at + 2] === 'number' &&
    typeof replies[at + 3] === 'number'
  );
}

/** The script client, acknowledged by replicas when `replicas` asks for it. */
function clientOf(redis: RedisClient, replicas: RedisLimiterOptions['replicas'], timeoutMs: number): ScriptClient {
  if (replicas === undefined) return scriptClient(redis);
  if (typeof replicas !== 'object' || replicas === null)
    throw invalidOption('replicas', 'expected { wait, timeoutMs }', replicas);
  const { wait, timeoutMs: waitMs } = replicas;
  if (!Number.isInteger(wait) || wait < 1)
    throw invalidOption('replicas.wait', 'expected a whole number of replicas >= 1', wait);
  if (!Number.isInteger(waitMs) || waitMs < 1 || waitMs >= timeoutMs) {
    throw invalidOption(
      'replicas.timeoutMs',
      `expected a whole number of ms from 1 to below timeoutMs (${timeoutMs}): WAIT 0 would block for ever`,
      waitMs,
    );
  }
  if (scriptClient(redis).cluster)
    throw invalidOption(
      'replicas',
      "WAIT is for a single server or Sentinel client: on a Cluster it would not reach the key's master",
      replicas,
    );
  return acknowledgedScriptClient(redis, { replicas: wait, timeoutMs: waitMs });
}

function batchOptionsOf(option: RedisLimiterOptions['batch']): { maxKeys: number; split: boolean } {
  if (option === undefined || option === true) return { maxKeys: DEFAULT_BATCH_KEYS, split: true };
  if (option === false) return { maxKeys: 1, split: false };
  const maxKeys = option.maxKeys ?? DEFAULT_BATCH_KEYS;
  if (!Number.isInteger(maxKeys) || maxKeys < 1)
    throw invalidOption('batch.maxKeys', 'expected a whole number >= 1', maxKeys);
  const split = option.split ?? true;
  if (typeof split !== 'boolean') throw invalidOption('batch.split', 'expected true or false', split);
  return { maxKeys, split };
}
