-- How the limits of composite-packed.lua (every limit of a key packed in one value) keep
-- their state: scripts.ts inlines each limit's body into the tail, a call of a function
-- costing Redis about as much as a line of arithmetic. In a body, a read of its state
-- (`read_pair()`, `read_fields(...)`) becomes the limit's slice of the packed value's
-- numbers (nil when the key does not exist), and each call of a function below becomes that
-- function's body in a block of its own, its parameters bound to the call's arguments and
-- `slice` standing for the limit's slice. They do what packed.lua's do (its comments say why).

local function write_pair(a, b, _, needed_ms)
  slice = a, b
  needs(needed_ms, min(2 * needed_ms, capacity * window / limit))
end

local function write_fields(_, needed_ms, _, v1, _, v2, _, v3)
  slice = v1, v2, v3
  needs(needed_ms, needed_ms)
end

local function needs(needed_ms, renew_ms)
  if now + needed_ms > need_until then need_until = now + needed_ms end
  if now + renew_ms > renew_until then renew_until = now + renew_ms end
end
