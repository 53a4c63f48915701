-- SPDX-License-Identifier: GPL-2.0-or-later
-- hooks.lua -- the university's network split (kernel cgroups
-- documentation): WWW browsing is one network class, subdivided by who
-- browses -- professors 15%, students 5%.  The rules decide "browser ->
-- /www" and "professor -> /profs"; this hook combines the two.
--
-- The hierarchy names are as the second field of /proc/PID/cgroup shows
-- them.  run-demo.sh rewrites them for its private hierarchies.

local CPU = "cpu,cpuacct"
local NET = "net_cls"

-- CPU class (from the rules' decision, or the task's current group)
-- to WWW sub-class
local function class_of(cpu)
  if cpu == nil then return nil end
  if cpu == "/profs" or cpu:sub(1, 7) == "/profs/" then return "profs" end
  if cpu == "/students" or cpu:sub(1, 10) == "/students/" then return "students" end
  return nil
end

function init()
  cgengine.log("info", "university hooks: WWW split by user class on " .. NET)
end

function classify(task, decision, why)
  if decision[NET] ~= "/www" then
    return
  end
  -- on a cgroup v2 host (unified-layout) the dimension is named "cpu",
  -- as the rules name it
  local class = class_of(decision[CPU] or decision["cpu"] or task:cgroup(CPU))
  if class then
    decision[NET] = "/www/" .. class
  end
end
