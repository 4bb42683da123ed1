--[[
  trimDead(letters, index, cap): keeps a dead-letter index (zset by time) to its newest `cap` ids, dropping the
  older ids' letters from the letters hash with them.
]]
local function trimDead (letters, index, cap)
  local over = redis.call('ZCARD', index) - tonumber(cap)
  if over > 0 then
    local old = redis.call('ZRANGE', index, 0, over - 1)
    redis.call('ZREMRANGEBYRANK', index, 0, over - 1)
    redis.call('HDEL', letters, unpack(old))
  end
end
