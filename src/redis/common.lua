-- The head of every limiter script. scripts.ts puts the policy's constants before it
-- (limit, window, capacity, min_ttl, repair: fewer arguments to send and parse per call),
-- then the algorithm's body as the function `decide`, then batch.lua, which decides every
-- key of the call in turn (or single.lua, one key). The helpers below are created once per
-- script call, not once per key. `key`, `cost` and `now` are set by the tail before each
-- decision; a body reads and writes only `key`, replies {allowed 0|1, remaining,
-- retryAfterMs (-1: never), resetMs}, whole numbers, and writes nothing when it denies.
-- A body writes through `write`, after its last read: redis.call here; in a script of
-- several limits per key (composite.lua) a queue, applied only once every limit admits.
local key, cost, now
local write = redis.call

-- Whole numbers below 1e14 (every whole-ms state short of huge policies) print exactly
-- with tostring, which is cheaper; anything else takes 17 significant digits, which
-- round-trip any double (tostring keeps only 14).
local function encode(x)
  if x == math.floor(x) and x < 1e14 and x > -1e14 then return tostring(x) end
  return string.format('%.17g', x)
end

-- The TTL of a state that is back to full quota in `ms`: expiry then never changes a
-- decision, and the key lives no longer than that (never an absurd TTL).
local function ttl(ms)
  return math.max(math.ceil(ms), min_ttl, 1)
end

-- The state of the bucket algorithms: two numbers and the time its TTL runs out, packed as
-- three doubles (struct 'ddd', 24 bytes), or nil when the key does not exist. Packed
-- doubles hold any Lua number exactly and take one C call each way (a text state takes
-- several string calls); bench/redis-lua-cost.ts measures a decision's cost inside Redis.
-- A value of another length is not ours: a key error.
local function read_pair()
  local stored = redis.call('GET', key)
  if not stored then return nil end
  if #stored ~= 24 then error('not a ratelab bucket state (' .. #stored .. ' bytes)') end
  return struct.unpack('ddd', stored)
end

-- Writes (a, b) as the state, which is needed for `needed_ms` more (until it is full). The
-- TTL is set only when the one set earlier (running out at `expires`) no longer covers
-- that, and then to twice the need (at most the time from empty to full): a TTL write in a
-- script is rewritten for replication and costs several plain writes, so a busy key renews
-- it about once per `needed_ms`, not on every request; a key still never outlives twice
-- its need.
local function write_pair(a, b, expires, needed_ms)
  if expires and now + needed_ms <= expires then
    write('SET', key, struct.pack('ddd', a, b, expires), 'KEEPTTL')
  else
    local ms = ttl(math.min(2 * needed_ms, capacity * window / limit))
    write('SET', key, struct.pack('ddd', a, b, now + ms), 'PX', ms)
  end
end

local function expire_after(ms)
  write('PEXPIRE', key, ttl(ms))
end

-- floor(a / b) for a >= 0, b > 0, corrected where the float quotient rounds up.
local function floor_div(a, b)
  local q = math.floor(a / b)
  if q * b > a then
    q = q - 1
  elseif (q + 1) * b <= a then
    q = q + 1
  end
  return q
end

-- The index of the aligned window to decide in, and the time to decide at: now's, or, when
-- the clock went back behind the stored window `stored`, that window's start (a reversed
-- clock never reopens an earlier window).
local function window_at(stored)
  local index = math.floor(now / window)
  if stored and index < stored then return stored, stored * window end
  return index, now
end

-- The wait for a cost the policy can never admit.
local NEVER = -1
