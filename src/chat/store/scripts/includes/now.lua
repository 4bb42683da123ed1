--[[
  The Redis server's time: `t` as TIME answers it, `now` in epoch ms. Times come from the server so that leases
  mean the same on every instance whatever their clocks.
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
