-- GCRA (see src/algorithms/gcra.ts): one string per key, the theoretical arrival time
-- TAT = q + r / limit ms, held as (q, r, expires) packed by write_pair (common.lua; r a
-- whole number below limit) so adding the emission interval window / limit stays exact. The state is needed until TAT.
local horizon = capacity * window -- tau + T, scaled by limit
local q, r, expires = read_pair()
if not q then q, r = now, 0 end
-- How far TAT is ahead of now, scaled by limit. A reversed clock only makes it larger.
local backlog = (q - now) * limit + r
if backlog <= 0 then
  backlog, q, r = 0, now, 0
end
local allowed = backlog + cost * window <= horizon
if allowed and cost > 0 then
  backlog = backlog + cost * window
  r = r + cost * window
  q = q + floor(r / limit)
  r = r % limit
  write_pair(q, r, expires, backlog / limit)
end
local retry = 0
if cost > capacity then
  retry = NEVER
elseif not allowed then
  retry = ceil((backlog + cost * window - horizon) / limit)
end
-- In a composite of packed limits, the units in use as the token bucket replies them.
-- reply in a composite: allowed and 1 or 0, ceil(backlog)
return allowed and 1 or 0, floor_div(horizon - backlog, window), retry, ceil(backlog / limit)
