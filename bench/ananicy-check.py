#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench/ananicy-check.py -- cgengined against a real ananicy-cpp corpus.

    python3 bench/ananicy-check.py BUILDDIR CORPUS [N [SEED]]     # root

Takes N (default 40) random rules of CORPUS, three of each type at least, (e.g. a checkout of CachyOS's ananicy-rules), starts each as a program of that name (a copy of sleep,
its argv[0] the rule's name, as ananicy-cpp matches it) under a
throwaway user, runs BUILDDIR's cgengined on a corpus of those rules
and every type, and compares what each program then has -- nice, I/O
class and level, scheduling policy and real-time priority,
oom_score_adj -- with what this script's own reading of ananicy-cpp's
semantics says it should get: the rule's fields over its type's; an
I/O class without a level means level 0; a level without a class sets
nothing; fifo and rr without rtprio mean 1.  A control program of a name
no rule has must keep its priorities.

Safety on a shared machine: the daemon reads only the sampled rules,
and a name is sampled only when no running process and no command on
PATH has it, so no process but this script's own can match.  The
daemon manages one private named hierarchy and moves nothing.
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

CLASSES = {"none": "none", "realtime": "realtime", "best-effort": "best-effort", "idle": "idle"}
POLICIES = {"normal": "SCHED_OTHER", "other": "SCHED_OTHER", "batch": "SCHED_BATCH",
            "idle": "SCHED_IDLE", "fifo": "SCHED_FIFO", "rr": "SCHED_RR"}


def objects(path):
    """The JSON object of each line of path, as (line number, dict, text)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            s = line.strip()
            if not s or s.startswith("#") or "{" not in s:
                continue
            s = s[s.index("{"):]
            try:
                o, _ = json.JSONDecoder().raw_decode(s)
            except ValueError:
                continue
            if isinstance(o, dict):
                yield n, o, s


def corpus(root):
    types, rules = {}, {}
    for d, _, files in sorted(os.walk(root)):
        for fn in sorted(files):
            p = os.path.join(d, fn)
            if fn.endswith(".types"):
                for _, o, _ in objects(p):
                    if isinstance(o.get("type"), str) and "name" not in o:
                        types[o["type"]] = o
            elif fn.endswith(".rules"):
                for _, o, text in objects(p):
                    if isinstance(o.get("name"), str) and o["name"]:
                        rules[o["name"]] = (o, text)  # a later line wins
    return types, rules


def busy_names():
    """Names a process on this machine could be matched by."""
    names = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/comm") as f:
                names.add(f.read().strip())
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                a0 = f.read().split(b"\0")[0].decode(errors="replace")
            names.add(a0.rsplit("/", 1)[-1])
        except OSError:
            pass
    return names


def expected(rule, types):
    v = dict(types.get(rule.get("type"), {})) if isinstance(rule.get("type"), str) else {}
    v.update({k: x for k, x in rule.items() if k not in ("name", "type")})
    want = {}
    if isinstance(v.get("nice"), int):
        want["nice"] = v["nice"]
    if v.get("ioclass") in CLASSES and v["ioclass"] != "none":
        level = v.get("ionice", 0) if isinstance(v.get("ionice"), int) else 0
        want["io"] = "idle" if v["ioclass"] == "idle" else f"{v['ioclass']}: prio {level}"
    if v.get("sched") in POLICIES:
        pol = POLICIES[v["sched"]]
        rt = v.get("rtprio", 1) if pol in ("SCHED_FIFO", "SCHED_RR") else 0
        want["sched"] = (pol, rt)
    if isinstance(v.get("oom_score_adj"), int):
        want["oom"] = v["oom_score_adj"]
    return want


def has(pid):
    with open(f"/proc/{pid}/stat") as f:
        st = f.read().rsplit(")", 1)[1].split()
    nice = int(st[16])
    io = subprocess.run(["ionice", "-p", str(pid)], capture_output=True, text=True).stdout.strip()
    out = subprocess.run(["chrt", "-p", str(pid)], capture_output=True, text=True).stdout
    pol = out.split("policy:")[1].splitlines()[0].strip().split()[0]
    rt = int(out.split("priority:")[1].split()[0])
    with open(f"/proc/{pid}/oom_score_adj") as f:
        oom = int(f.read())
    return {"nice": nice, "io": io, "sched": (pol, rt), "oom": oom}


def main():
    if len(sys.argv) < 3 or os.geteuid() != 0:
        sys.exit(__doc__)
    build, root = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else int(time.time())
    types, rules = corpus(root)
    busy = busy_names()
    usable = sorted(x for x in rules if "/" not in x and "\0" not in x and len(x) < 200
                    and x not in busy and shutil.which(x) is None and expected(rules[x][0], types))
    rnd = random.Random(seed)
    rnd.shuffle(usable)
    # every type the rules use, three rules each at least, then the rest at random
    pick, per = [], {}
    for x in usable:
        ty = str(rules[x][0].get("type"))
        if per.get(ty, 0) < 3:
            per[ty] = per.get(ty, 0) + 1
            pick.append(x)
    pick += [x for x in usable if x not in set(pick)][:max(0, n - len(pick))]
    print(f"# corpus: {len(rules)} rules, {len(types)} types; {len(usable)} usable; "
          f"seed {seed}; {len(pick)} picked")

    tag = f"cgank{os.getpid()}"
    t = tempfile.mkdtemp(prefix=f"cgengine-{tag}.")
    os.chmod(t, 0o755)
    os.makedirs(f"{t}/ana")
    with open(f"{t}/ana/00-types.types", "w") as f:
        for o in types.values():
            f.write(json.dumps(o) + "\n")
    with open(f"{t}/ana/picked.rules", "w") as f:
        for x in pick:
            f.write(rules[x][1] + "\n")
    open(f"{t}/cgrules.conf", "w").close()
    os.makedirs(f"{t}/h")
    subprocess.run(["mount", "-t", "cgroup", "-o", f"none,name={tag}", "cgroup", f"{t}/h"], check=True)
    subprocess.run(["useradd", "--system", "--no-create-home", "--user-group", tag], check=True)
    shutil.copy("/bin/sleep", f"{t}/prog")
    with open(f"{t}/cgengined.conf", "w") as f:
        f.write(f'rules = "{t}/cgrules.conf"\nrules-dir = ""\nhierarchies = {{"name={tag}"}}\n'
                f'sticky-socket = ""\ncontrol-socket = "{t}/control.sock"\npidfile = "{t}/pid"\n'
                f'state-file = ""\nlog-level = "info"\nananicy-dir = "{t}/ana"\n')
    daemon, kids, bad = None, [], 0
    try:
        daemon = subprocess.Popen([f"{build}/cgengined", "-n", "-c", f"{t}/cgengined.conf",
                                   "-l", f"{t}/log"])
        for _ in range(100):
            if os.path.exists(f"{t}/log") and "ready:" in open(f"{t}/log").read():
                break
            time.sleep(0.1)
        run = ["setpriv", f"--reuid={tag}", f"--regid={tag}", "--init-groups",
               "bash", "-c", 'exec -a "$0" "$@"']
        ctl = subprocess.Popen(run + [f"{tag}-none", f"{t}/prog", "300"])
        kids.append(ctl)
        for x in pick:
            kids.append(subprocess.Popen(run + [x, f"{t}/prog", "300"]))
        time.sleep(3)
        base = has(ctl.pid)
        # an oom_score_adj below 0 needs CAP_SYS_RESOURCE, which some
        # containers' root lacks: then the kernel refuses it, and so
        # the daemon (counted as failed), and it is not asked for here
        with open("/proc/self/status") as f:
            caps = int([l.split()[1] for l in f if l.startswith("CapEff:")][0], 16)
        sys_resource = bool(caps & (1 << 24))
        if not sys_resource:
            print("# no CAP_SYS_RESOURCE here: oom_score_adj below 0 is not checked")
        for x, p in zip(pick, kids[1:]):
            want = dict(base)
            want.update(expected(rules[x][0], types))
            if not sys_resource and want["oom"] < 0:
                want["oom"] = base["oom"]
            got = has(p.pid)
            same = got == want
            bad += not same
            print(f"{'ok' if same else 'NOT OK'}  {x!r}: want {want}" + ("" if same else f" got {got}"))
        base2 = has(ctl.pid)
        print(f"{'ok' if base2 == base else 'NOT OK'}  the control program keeps {base2}")
        bad += base2 != base
    finally:
        for p in kids:
            p.kill()
            p.wait()
        if daemon is not None:
            daemon.terminate()
            daemon.wait()
        time.sleep(0.2)
        subprocess.run(["umount", f"{t}/h"])
        subprocess.run(["userdel", tag])
        subprocess.run(["groupdel", tag], stderr=subprocess.DEVNULL)
        shutil.rmtree(t, ignore_errors=True)
    print(f"{len(pick) + 1 - bad} passed, {bad} failed")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
