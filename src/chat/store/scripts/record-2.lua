--[[
  Records staff and system messages in a phone's conversation (a turn's are recorded by its commit).

  Input:
    KEYS[1] history       the phone's conversation history
    KEYS[2] conversation  the phone's conversation record

    ARGV[1...7] the history record (history.lua)

  Output:
    nil
]]
--- @include "history"
recordHistory(KEYS[1], KEYS[2], 1)
return false
