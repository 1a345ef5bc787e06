-- The tail of a script of several limits on each key, all or nothing. scripts.ts puts
-- before it: `parts`, one function per limit that sets the limit's constants (and its
-- `slot`) and runs its algorithm's body, in the order decided: the limits packed in one
-- value (packed.lua) first, then the sliding logs (a list each); `places`, each part's
-- place in the policy list (its reply's); `packed`, how many parts are packed; `layout`,
-- the packed value's struct format, of `size` doubles; `replies`; and `decide_packed`,
-- the packed parts' decisions unrolled, each reply in its place.
-- KEYS hold each call's keys (all in one hash slot): the packed value's (when `packed` > 0),
-- then each sliding log's; ARGV as in batch.lua, one cost (and time) per call.
-- A call is admitted only if every limit admits it; then the packed value is written once
-- (one SET, its TTL renewed only when it no longer covers the longest need), and each
-- sliding log's writes, queued by `write` meanwhile, are made (the last log's go straight
-- to Redis once every other limit admitted: its own denial writes nothing). Otherwise
-- nothing is written, and each limit that would have admitted answers as its state
-- stands: decided again at cost 0, which writes nothing.
-- Replies: 4 entries per limit of each call, in the list's order. A key error of any
-- limit's key (the packed value's: another type, or a value of another length) fails the
-- whole call, writing nothing: its text in place of the call's first entry. With `repair`
-- that key is deleted and decided afresh.
local width = #parts
local per = width - packed
if packed > 0 then per = per + 1 end
local n = #KEYS / per
local shared = tonumber(ARGV[1])
if not shared and #ARGV == n + 1 then shared = server_ms() end
local queue, queued = {}, 0
local direct = write
local function enqueue(...)
  queued = queued + 1
  queue[queued] = { ... }
end
local function flush()
  for q = 1, queued do redis.call(unpack(queue[q])) end
end
local bytes = 8 * size
-- The packed value of `pkey` as `state` (nil when absent), or the key error it makes.
local function load(pkey)
  local stored = redis.pcall('GET', pkey)
  local failure
  if type(stored) == 'table' then
    failure = stored
  elseif stored and #stored ~= bytes then
    failure = 'not a ratelab limits state (' .. #stored .. ' bytes)'
  end
  if failure ~= nil then
    if not repairable(failure) then return failure end
    redis.call('DEL', pkey)
    stored = nil
  end
  state = stored or nil
end
for i = 1, n do
  local asked = tonumber(ARGV[1 + i])
  local at = tonumber(ARGV[1 + n + i]) or shared
  local first = per * (i - 1)
  local base = 4 * width * (i - 1)
  local logs = first + per - width
  local admitted, failure = true, nil
  queued = 0
  if packed > 0 then
    failure = load(KEYS[first + 1])
    need_until, renew_until = 0, 0
    if failure == nil then admitted = decide_packed(asked, at, base) end
  end
  for j = packed + 1, failure == nil and width or 0 do
    cost, now = asked, at
    key = KEYS[logs + j]
    write = (j == width and admitted) and direct or enqueue
    local ok, allowed, remaining, retry, reset = pcall(parts[j])
    if not ok and repairable(allowed) then
      redis.call('DEL', key)
      now = at
      ok, allowed, remaining, retry, reset = pcall(parts[j])
    end
    if not ok then
      failure = allowed
      break
    end
    local at4 = base + 4 * places[j] - 3
    replies[at4], replies[at4 + 1], replies[at4 + 2], replies[at4 + 3] = allowed, remaining, retry, reset
    if allowed == 0 then admitted = false end
  end
  if failure == nil and admitted then
    if queued > 0 then
      local ok, reply = pcall(flush)
      if not ok then failure = reply end
    end
    if failure == nil and packed > 0 and asked > 0 then
      local expires, reply = state and struct.unpack('d', state), nil
      if expires and need_until <= expires then
        fresh[1] = expires
        reply = redis.pcall('SET', KEYS[first + 1], struct.pack(layout, unpack(fresh, 1, size)), 'KEEPTTL')
      else
        local ms = ttl(renew_until - at)
        fresh[1] = at + ms
        reply = redis.pcall('SET', KEYS[first + 1], struct.pack(layout, unpack(fresh, 1, size)), 'PX', ms)
      end
      if reply.err then failure = reply end
    end
  elseif failure == nil then
    for j = 1, width do
      local at4 = base + 4 * places[j] - 3
      if replies[at4] == 1 then
        cost, now = 0, at
        if j > packed then key = KEYS[logs + j] end
        local _, remaining, retry, reset = parts[j]()
        replies[at4 + 1], replies[at4 + 2], replies[at4 + 3] = remaining, retry, reset
      end
    end
  end
  if failure ~= nil then
    replies[base + 1] = error_text(failure)
    for e = base + 2, base + 4 * width do replies[e] = 0 end
  end
end
return replies
