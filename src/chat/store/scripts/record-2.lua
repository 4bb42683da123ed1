--[[
  Records staff and system messages in a club's conversation with a phone (a turn's are recorded by its commit).

  Input:
    KEYS[1] history       the club's conversation history with the phone
    KEYS[2] conversation  that conversation's record

    ARGV[1...7] the history record (history.lua)

  Output:
    nil
]]
--- @include "history"
recordHistory(KEYS[1], KEYS[2], 1)
return false
