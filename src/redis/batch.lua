-- The tail of every limiter script: decides KEYS[1..n] in order, as n separate calls
-- would (a key listed twice sees its own earlier write). ARGV[1+i] is key i's cost.
-- Times in ms: ARGV[2+n..1+2n] per key when given (a caller's clock), else ARGV[1] for the
-- whole call, else ('') the server's TIME, read once for the call: one clock for every app
-- server (theirs may be skewed: spring-cloud-gateway PR #1688).
-- A key whose state is unusable (WRONGTYPE, a value the body cannot parse) fails alone:
-- its reply is the error's text in place of the first of its 4 numbers. With `repair`, a
-- key of the wrong type or whose value does not parse (a Lua error, a string; Redis's own
-- errors such as OOM are tables and are never repaired) is deleted and decided afresh, as
-- a key that does not exist.
local n = #KEYS
local shared = tonumber(ARGV[1])
if not shared and #ARGV == n + 1 then shared = server_ms() end
local replies = {}
for i = 1, n do
  key = KEYS[i]
  cost = tonumber(ARGV[1 + i])
  now = tonumber(ARGV[1 + n + i]) or shared
  local at = now
  local ok, allowed, remaining, retry, reset = pcall(decide)
  if not ok and repairable(allowed) then
    redis.call('DEL', key)
    now = at
    ok, allowed, remaining, retry, reset = pcall(decide)
  end
  -- One flat reply, 4 entries per key (a nested table per key costs the client an array
  -- each to parse); a failed key's first entry is its error's text.
  local at4 = 4 * i - 3
  if ok then
    replies[at4], replies[at4 + 1], replies[at4 + 2], replies[at4 + 3] = allowed, remaining, retry, reset
  else
    replies[at4], replies[at4 + 1], replies[at4 + 2], replies[at4 + 3] = error_text(allowed), 0, 0, 0
  end
end
return replies
