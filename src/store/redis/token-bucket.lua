-- Token bucket (see src/algorithms/token-bucket.ts): one string per key, "last:tokens",
-- tokens in fixed point (one token = `window` units, each ms adds `limit` units), so
-- whole-ms times give exact integers. A key that does not exist is a full bucket. One
-- string written with SET PX costs the server less than a hash and a PEXPIRE.
local full = capacity * window
local tokens = full
local stored = redis.call('GET', key)
if stored then
  local sep = string.find(stored, ':', 1, true)
  local last = tonumber(string.sub(stored, 1, sep - 1))
  -- A reversed clock is decided as of the key's last time: it never refills twice.
  if now < last then now = last end
  tokens = math.min(full, tonumber(string.sub(stored, sep + 1)) + (now - last) * limit)
end
local need = cost * window
local allowed = tokens >= need
if allowed and cost > 0 then
  tokens = tokens - need
  redis.call('SET', key, encode(now) .. ':' .. encode(tokens), 'PX', ttl((full - tokens) / limit))
end
local retry = 0
if cost > capacity then
  retry = NEVER
elseif not allowed then
  retry = math.ceil((need - tokens) / limit)
end
return { allowed and 1 or 0, floor_div(tokens, window), retry, math.ceil((full - tokens) / limit) }
