-- The tail of a script of several limits on each key, all or nothing. scripts.ts puts
-- `parts` before it: one function per limit, in order, that sets the limit's constants
-- and runs its algorithm's body. KEYS hold each call's limit keys in that order (#parts a
-- call, all in one hash slot); ARGV as in batch.lua, one cost (and time) per call.
-- A call is admitted only if every limit admits it; then every limit's writes, queued by
-- `write` meanwhile, are made (the last limit's go straight to Redis once every other one
-- admitted: its own denial writes nothing). Otherwise nothing is written, and each limit
-- that would have admitted answers as its state stands: decided again at cost 0, which
-- writes nothing.
-- Replies: 4 entries per limit of each call. A key error of any limit fails the whole
-- call, writing nothing: its text in place of the call's first entry.
local width = #parts
local n = #KEYS / width
local shared = tonumber(ARGV[1])
if not shared and #ARGV == n + 1 then
  local time = redis.call('TIME')
  shared = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local queue, queued = {}, 0
local direct = write
local function enqueue(...)
  queued = queued + 1
  queue[queued] = { ... }
end
local function flush()
  for q = 1, queued do redis.call(unpack(queue[q])) end
end
local replies = {}
for i = 1, n do
  local asked = tonumber(ARGV[1 + i])
  local at = tonumber(ARGV[1 + n + i]) or shared
  local first = width * (i - 1)
  local admitted, failure = true, nil
  queued = 0
  for j = 1, width do
    key, cost, now = KEYS[first + j], asked, at
    write = (j == width and admitted) and direct or enqueue
    local ok, reply = pcall(parts[j])
    if not ok and repair and (type(reply) == 'string' or string.sub(tostring(reply.err), 1, 9) == 'WRONGTYPE') then
      redis.call('DEL', key)
      now = at
      ok, reply = pcall(parts[j])
    end
    if not ok then
      failure = reply
      break
    end
    local at4 = 4 * (first + j) - 3
    replies[at4], replies[at4 + 1], replies[at4 + 2], replies[at4 + 3] = reply[1], reply[2], reply[3], reply[4]
    if reply[1] == 0 then admitted = false end
  end
  if failure == nil and admitted then
    if queued > 0 then
      local ok, reply = pcall(flush)
      if not ok then failure = reply end
    end
  elseif failure == nil then
    for j = 1, width do
      local at4 = 4 * (first + j) - 3
      if replies[at4] == 1 then
        key, cost, now = KEYS[first + j], 0, at
        local reply = parts[j]()
        replies[at4 + 1], replies[at4 + 2], replies[at4 + 3] = reply[2], reply[3], reply[4]
      end
    end
  end
  if failure ~= nil then
    replies[4 * first + 1] = type(failure) == 'table' and tostring(failure.err) or tostring(failure)
    for e = 4 * first + 2, 4 * (first + width) do replies[e] = 0 end
  end
end
return replies
