-- The tail of the per-call script (`batch: false`): batch.lua for one key, without the
-- loop, the reply table copy or the empty first argument. KEYS[1] is the key, ARGV[1] its
-- cost, ARGV[2] the time of a caller's clock when there is one, else the server's TIME.
-- Same decisions and the same 4-entry reply, a key error's text in place of the first.
key = KEYS[1]
cost = tonumber(ARGV[1])
now = tonumber(ARGV[2])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local at = now
local ok, reply = pcall(decide)
if ok then return reply end
if repair and (type(reply) == 'string' or string.sub(tostring(reply.err), 1, 9) == 'WRONGTYPE') then
  redis.call('DEL', key)
  now = at
  ok, reply = pcall(decide)
  if ok then return reply end
end
return { type(reply) == 'table' and tostring(reply.err) or tostring(reply), 0, 0, 0 }
