-- Sliding-window counter (see src/algorithms/sliding-counter.ts): a hash {window, prev,
-- cur}; the estimate prev * (W - elapsed) / W + cur, compared multiplied through by W so
-- whole-ms times give exact integers.
local stored, stored_prev, stored_cur = read_fields('window', 'prev', 'cur')
local index
index, now = window_at(stored)
local prev, cur = 0, 0
if index == stored then
  prev, cur = stored_prev, stored_cur
elseif stored and index == stored + 1 then
  prev = stored_cur
end
local elapsed = now - index * window
local used = prev * (window - elapsed) + cur * window
local allowed = used + cost * window <= limit * window
if allowed and cost > 0 then
  local first = cur == 0
  cur = cur + cost
  used = used + cost * window
  -- Full again at the end of the next window; the TTL is set once per window.
  write_fields(first, 2 * window - elapsed, 'window', index, 'prev', prev, 'cur', cur)
end
local retry = 0
if cost > limit then
  retry = NEVER
elseif not allowed then
  -- The estimate only falls with time, so the first instant that admits cost is closed form.
  local room = limit - cur - cost
  if room >= 0 and prev == 0 then
    retry = 0
  elseif room >= 0 then
    local needed = window - floor_div(room * window, prev)
    retry = needed <= elapsed and 0 or ceil(needed - elapsed)
  else
    retry = ceil(2 * window - elapsed - floor_div((limit - cost) * window, cur))
  end
end
local room = limit * window - used
local remaining = room <= 0 and 0 or floor_div(room, window)
local reset = 0
if cur > 0 then
  reset = ceil(2 * window - elapsed)
elseif prev > 0 then
  reset = ceil(window - elapsed)
end
return allowed and 1 or 0, remaining, retry, reset
