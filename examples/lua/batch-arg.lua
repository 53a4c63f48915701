-- SPDX-License-Identifier: GPL-2.0-or-later
-- batch-arg.lua -- send any process started with a given argument
-- (here "--batch") to a batch CPU class, whoever runs it.  The command
-- line is read only when the hook asks for it.
--
-- Use it with   lua-script = "/etc/cgengine/batch-arg.lua"

local CPU = "cpu,cpuacct"
local ARG = "--batch"
local BATCH = "/batch"

function classify(task, decision, why)
  for i, arg in ipairs(task.cmdline) do
    if i > 1 and arg == ARG then
      decision[CPU] = BATCH
      return
    end
  end
end
