-- Fixed window (see src/algorithms/fixed-window.ts): a hash {window, count}, windows
-- aligned to multiples of `window` ms. The window index is stored, not left to the TTL, so
-- a virtual clock that runs apart from Redis's own still decides correctly.
local stored, stored_count = read_fields('window', 'count')
local index
index, now = window_at(stored)
local count = 0
if index == stored then count = stored_count end
local ends_in = (index + 1) * window - now
local allowed = count + cost <= limit
if allowed and cost > 0 then
  count = count + cost
  -- The TTL is set once per window, by its first admission (not on every increment,
  -- envoy ratelimit #80).
  write_fields(count == cost, ends_in, 'window', index, 'count', count)
end
local retry = 0
if cost > limit then
  retry = NEVER
elseif not allowed then
  retry = ceil(ends_in)
end
local reset = 0
if count > 0 then reset = ceil(ends_in) end
return allowed and 1 or 0, limit - count, retry, reset
