-- The shared count of the approximate limiter (approximate-limiter.ts): a hash {window,
-- count} per key. A node adds what it admitted since its last sync (ARGV[2]) to the count
-- of window ARGV[1] and reads back the total. ARGV[3]: TTL in ms, set once per window.
-- Replies the window's total, or -1 when the node's window is older than the stored one
-- (its clock lags; what it sends for a finished window no longer matters).
local index = tonumber(ARGV[1])
local delta = tonumber(ARGV[2])
local state = redis.call('HMGET', KEYS[1], 'window', 'count')
local stored = tonumber(state[1])
local count = 0
if stored then
  if stored > index then return -1 end
  if stored == index then count = tonumber(state[2]) end
end
if delta > 0 then
  count = count + delta
  redis.call('HSET', KEYS[1], 'window', string.format('%.17g', index), 'count', string.format('%.17g', count))
  if count == delta then redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3])) end
end
return count
