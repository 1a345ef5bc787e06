-- The tail of a script of several limits on each key when every limit is packed in one
-- value (no sliding log): composite.lua's decisions, replies and writes, without its
-- machinery for lists (closures per limit, the write queue, pcalls). scripts.ts puts before
-- it `stride` (reply numbers per key), `bytes` and `layout` (the packed value's length and
-- struct format), `need_until`, `renew_until`, and the value's numbers as locals (`@state`
-- below stands for their list, `@expires` the first: the TTL's end, then each limit's
-- slice, packed.lua's layout), and replaces `@decide` with each limit's body inlined in turn
-- (its constants set, its state read from and written to its slice, its replies in its
-- place from `replies[base + 1]`: a bucket's two, whether it admitted and the units in use,
-- from which the client works out the rest, the other algorithms' four), `@admitted` with
-- whether every limit admitted, and `@redecide` with the same bodies at cost 0 for the
-- limits that admitted (a denial writes nothing; those answer as their state stands).
-- KEYS: one packed value per call; ARGV as in batch.lua.
local n = #KEYS
local shared = tonumber(ARGV[1])
if not shared and #ARGV == n + 1 then shared = server_ms() end
local replies = {}
-- The value at `pkey` is not ours (`stored`: an error reply, or a string of another length):
-- the key error, or, with `repair`, nothing once the key is deleted (decided afresh).
local function unusable(pkey, stored)
  local failure = stored
  if type(stored) ~= 'table' then failure = 'not a ratelab limits state (' .. #stored .. ' bytes)' end
  if not repairable(failure) then return failure end
  redis.call('DEL', pkey)
end
for i = 1, n do
  local pkey = KEYS[i]
  local asked = tonumber(ARGV[1 + i])
  local at = tonumber(ARGV[1 + n + i]) or shared
  local base = stride * (i - 1)
  local stored, failure = redis.pcall('GET', pkey), nil
  -- An error reply is a table, whose length (0) is never `bytes`.
  if stored and #stored ~= bytes then
    failure = unusable(pkey, stored)
    stored = false
  end
  if failure == nil then
    if stored then
      @state = struct.unpack(layout, stored)
    else
      @state = nil
    end
    need_until, renew_until, cost = 0, 0, asked
@decide
    if @admitted then
      if asked > 0 then
        local reply
        if @expires and need_until <= @expires then
          reply = redis.pcall('SET', pkey, struct.pack(layout, @state), 'KEEPTTL')
        else
          local ms = ttl(renew_until - at)
          @expires = at + ms
          reply = redis.pcall('SET', pkey, struct.pack(layout, @state), 'PX', ms)
        end
        if reply.err then failure = reply end
      end
    else
      if stored then
        @state = struct.unpack(layout, stored)
      else
        @state = nil
      end
      cost = 0
@redecide
    end
  end
  if failure ~= nil then
    replies[base + 1] = error_text(failure)
    for e = base + 2, base + stride do replies[e] = 0 end
  end
end
return replies
