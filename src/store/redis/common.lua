-- The head of every limiter script. scripts.ts puts the policy's constants before it
-- (limit, window, capacity, min_ttl: fewer arguments to send and parse per call) and the
-- algorithm's body after it. KEYS[1]: the key's state, the only key a script touches (so
-- Redis Cluster never sees CROSSSLOT). ARGV: cost, now (ms; '' reads the server's TIME).
-- Every body replies {allowed 0|1, remaining, retryAfterMs (-1: never), resetMs}, whole
-- numbers, and writes nothing when it denies.
local key = KEYS[1]
local cost = tonumber(ARGV[1])
local now = tonumber(ARGV[2])
if not now then
  -- One clock for every app server: theirs may be skewed (spring-cloud-gateway PR #1688).
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

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

local function expire_after(ms)
  redis.call('PEXPIRE', key, ttl(ms))
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
