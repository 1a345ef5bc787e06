-- The tail of the per-call script (`batch: false`): batch.lua for one key, without the
-- loop, the reply table copy or the empty first argument. KEYS[1] is the key, ARGV[1] its
-- cost, ARGV[2] the time of a caller's clock when there is one, else the server's TIME.
-- Same decisions and the same 4-entry reply, a key error's text in place of the first.
key = KEYS[1]
cost = tonumber(ARGV[1])
now = tonumber(ARGV[2]) or server_ms()
local at = now
local ok, allowed, remaining, retry, reset = pcall(decide)
if ok then return { allowed, remaining, retry, reset } end
if repairable(allowed) then
  redis.call('DEL', key)
  now = at
  ok, allowed, remaining, retry, reset = pcall(decide)
  if ok then return { allowed, remaining, retry, reset } end
end
return { error_text(allowed), 0, 0, 0 }
