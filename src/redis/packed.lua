-- The state helpers of a script of several limits per key (composite.lua), in place of
-- common.lua's: every limit of the buckets and the window algorithms keeps its state in
-- one slice of a single value per key, `{prefix}pack:...{:key}`, so a decision reads it with
-- one GET and writes it with one SET however many limits it has (a key per limit cost a
-- GET and a SET each, most of a decision's time in Redis). The value is doubles packed by
-- struct: the time its TTL runs out (in the time decisions are made at), then each limit's
-- numbers at its offset `slot`, in the list's order. The tail reads it into `state` (nil
-- when the key does not exist) and sets `slot` before each limit's body; a body's writes
-- go to `fresh`, which the tail packs and writes once every limit admitted (every body
-- writes its whole slice when it admits a cost > 0), and to the TTL the key needs:
-- `need_until`, when the latest state is back to full quota, and `renew_until`, the time
-- to renew it to when the TTL no longer covers that (as write_pair does for one key).
local state, slot
local fresh = {}
local need_until, renew_until = 0, 0
-- A limit's state is needed for `needed_ms` more; renewing the TTL, give it `renew_ms`.
local function needs(needed_ms, renew_ms)
  if now + needed_ms > need_until then need_until = now + needed_ms end
  if now + renew_ms > renew_until then renew_until = now + renew_ms end
end

local function read_pair()
  if not state then return nil end
  local a, b = struct.unpack('dd', state, 8 * slot + 1)
  return a, b
end

local function write_pair(a, b, _, needed_ms)
  fresh[slot + 1], fresh[slot + 2] = a, b
  needs(needed_ms, min(2 * needed_ms, capacity * window / limit))
end

local function read_fields(_, _, third)
  if not state then return nil end
  if not third then
    local a, b = struct.unpack('dd', state, 8 * slot + 1)
    return a, b
  end
  local a, b, c = struct.unpack('ddd', state, 8 * slot + 1)
  return a, b, c
end

local function write_fields(_, needed_ms, _, v1, _, v2, _, v3)
  fresh[slot + 1], fresh[slot + 2] = v1, v2
  if v3 then fresh[slot + 3] = v3 end
  needs(needed_ms, needed_ms)
end
