-- Token bucket (see src/algorithms/token-bucket.ts): one string per key, the state
-- (last, tokens, expires) packed as three doubles by write_pair (common.lua), tokens in
-- fixed point (one token = `window` units, each ms adds `limit` units), so whole-ms times
-- give exact integers. A key that does not exist is a full bucket.
local full = capacity * window
local tokens = full
local last, stored_tokens, expires = read_pair()
if last then
  -- A reversed clock is decided as of the key's last time: it never refills twice.
  if now < last then now = last end
  tokens = min(full, stored_tokens + (now - last) * limit)
end
local need = cost * window
local allowed = tokens >= need
if allowed and cost > 0 then
  tokens = tokens - need
  write_pair(now, tokens, expires, (full - tokens) / limit)
end
local retry = 0
if cost > capacity then
  retry = NEVER
elseif not allowed then
  retry = ceil((need - tokens) / limit)
end
-- In a composite of packed limits the client works out the figures from the units in use
-- (see composite-packed.lua): rounded up, so a fractional-ms clock errs towards less room.
-- reply in a composite: allowed and 1 or 0, ceil(full - tokens)
return allowed and 1 or 0, floor_div(tokens, window), retry, ceil((full - tokens) / limit)
