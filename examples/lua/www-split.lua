-- SPDX-License-Identifier: GPL-2.0-or-later
-- www-split.lua -- the university's network split, from the kernel's
-- cgroups documentation: WWW traffic is divided by user class
-- (professors 15%, students 5%).  The rules put browsers in /www (by
-- program) and people in /profs or /students (by user); this hook
-- combines the two, which a rules file alone cannot do.
--
-- Use it with   lua-script = "/etc/cgengine/www-split.lua"
-- Edit the two names below to match your hierarchies (as the second
-- field of /proc/PID/cgroup shows them).

local CPU = "cpu,cpuacct"
local NET = "net_cls"

local classes = { ["/profs"] = "profs", ["/students"] = "students" }

function init()
  cgengine.log("info", "www-split: WWW traffic is split by CPU class")
end

function classify(task, decision, why)
  if decision[NET] ~= "/www" then
    return                      -- not a browser: keep the rules' decision
  end
  -- the CPU class the rules chose now, or else the one the task has
  local cpu = decision[CPU] or task:cgroup(CPU)
  local class = cpu and classes[cpu]
  if class then
    decision[NET] = "/www/" .. class
  end
end
