-- The head of every limiter script. scripts.ts puts the policy's constants before it
-- (limit, window, capacity, min_ttl, repair: fewer arguments to send and parse per call),
-- then the algorithm's body as the function `decide`, then batch.lua, which decides every
-- key of the call in turn (or single.lua, one key). The helpers below are created once per
-- script call, not once per key. `key`, `cost` and `now` are set by the tail before each
-- decision; a body replies allowed (0|1), remaining, retryAfterMs (-1: never), resetMs,
-- whole numbers, as four values (not a table: none to allocate), and writes nothing when it
-- denies. A body keeps its state through read_pair/write_pair (the buckets) or
-- read_fields/write_fields (the windows), reading before it writes: here they read and
-- write `key`; in a script of several limits per key packed.lua replaces them, the state
-- being one slice of a value shared by the key's limits (composite.lua). The sliding log
-- reads its list itself and writes through `write`: redis.call here, a queue in a
-- composite, applied only once every limit admits.
local key, cost, now
local write = redis.call
-- The math functions as locals: a global's lookup is two table reads, a local's none, and
-- a decision calls several (bench/redis-lua-cost.ts).
local floor, ceil, min, max = math.floor, math.ceil, math.min, math.max

-- Whole numbers below 1e14 (every whole-ms state short of huge policies) print exactly
-- with tostring, which is cheaper; anything else takes 17 significant digits, which
-- round-trip any double (tostring keeps only 14).
local function encode(x)
  if x == floor(x) and x < 1e14 and x > -1e14 then return tostring(x) end
  return string.format('%.17g', x)
end

-- The TTL of a state that is back to full quota in `ms`: expiry then never changes a
-- decision, and the key lives no longer than that (never an absurd TTL).
local function ttl(ms)
  return max(ceil(ms), min_ttl, 1)
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
    local ms = ttl(min(2 * needed_ms, capacity * window / limit))
    write('SET', key, struct.pack('ddd', a, b, now + ms), 'PX', ms)
  end
end

local function expire_after(ms)
  write('PEXPIRE', key, ttl(ms))
end

-- The state of the window algorithms: a hash of the named fields (two or three), read as
-- numbers (nil for a missing field), and written, with the TTL set to `needed_ms` when
-- `first` (the window's first admission: once per window).
local function read_fields(...)
  local state = redis.call('HMGET', key, ...)
  return tonumber(state[1]), tonumber(state[2]), tonumber(state[3])
end

local function write_fields(first, needed_ms, f1, v1, f2, v2, f3, v3)
  if f3 then
    write('HSET', key, f1, encode(v1), f2, encode(v2), f3, encode(v3))
  else
    write('HSET', key, f1, encode(v1), f2, encode(v2))
  end
  if first then expire_after(needed_ms) end
end

-- floor(a / b) for a >= 0, b > 0, corrected where the float quotient rounds up.
local function floor_div(a, b)
  local q = floor(a / b)
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
  local index = floor(now / window)
  if stored and index < stored then return stored, stored * window end
  return index, now
end

-- Whether a decision's error `e` (a pcall's, or a redis.pcall reply's) is one of its key's
-- own, which `repair` deletes the key for: a Lua error (a string: a value the body cannot
-- parse) or WRONGTYPE. Redis's other errors (OOM, ...) are tables and are never repaired.
local function repairable(e)
  return repair and (type(e) == 'string' or string.sub(tostring(e.err), 1, 9) == 'WRONGTYPE')
end

-- The server's clock in ms (TIME), for a call whose caller gives no time: read once per call.
local function server_ms()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + floor(tonumber(time[2]) / 1000)
end

-- The text of an error `e` as a reply carries it (Redis's own errors are tables {err = text}).
local function error_text(e)
  return type(e) == 'table' and tostring(e.err) or tostring(e)
end

-- The wait for a cost the policy can never admit.
local NEVER = -1
