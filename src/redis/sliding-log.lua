-- Sliding log (see src/algorithms/sliding-log.ts): a list of admission times, oldest
-- first, one entry per admitted unit, never more than `limit` entries.
local newest = tonumber(redis.call('LINDEX', key, -1))
-- A reversed clock is decided as of the newest entry.
if newest and now < newest then now = newest end
local horizon = now - window
-- Count the entries that left the window; they are dropped only when something is
-- admitted, so a denial writes nothing.
local expired = 0
while true do
  local oldest = tonumber(redis.call('LINDEX', key, expired))
  if not oldest or oldest > horizon then break end
  expired = expired + 1
end
local count = redis.call('LLEN', key) - expired
local allowed = count + cost <= limit
if allowed and cost > 0 then
  if expired > 0 then write('LTRIM', key, expired, -1) end
  local stamp = encode(now)
  local batch = {}
  for i = 1, cost do
    batch[#batch + 1] = stamp
    -- unpack() is bounded by Lua's C stack: push in slices.
    if #batch == 1000 or i == cost then
      write('RPUSH', key, unpack(batch))
      batch = {}
    end
  end
  expired = 0
  count = count + cost
  newest = now
  expire_after(window)
end
local retry = 0
if cost > limit then
  retry = NEVER
elseif not allowed then
  -- The (count + cost - limit)-th oldest live entry must leave the window first.
  local must_leave = tonumber(redis.call('LINDEX', key, expired + count + cost - limit - 1))
  retry = ceil(must_leave + window - now)
end
local reset = 0
if count > 0 then reset = ceil(newest + window - now) end
return allowed and 1 or 0, limit - count, retry, reset
