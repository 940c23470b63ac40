#!/usr/bin/env python3
"""Random fault-injection trials: app x preset x point x node.

Each trial runs one small job with RDSM_FAULT=POINT:NODE:N:ACTION, so that
node NODE dies (ACTION die) or stops, frozen by SIGSTOP as a hung node would
be (ACTION stop), the N-th time it reaches POINT (see
src/common/fault_inject.hpp), and checks what a user must be able to rely on
when a node fails in the middle of a protocol step:
  - the job exits non-zero, within 2 s of the node's death, or of the hang
    timeout's expiry after its stop (stop trials run with --hang-timeout 1);
  - its messages name the node and the point;
  - no process of the job is left (found by a marker in their environment),
    and nothing new is left in /dev/shm.
A trial whose node never reaches the point (the job passes) is counted as
not reached, not as a failure; the driver fails if no trial reached its
point at all.  With --reached, --trials counts the trials whose fault
happened: trials are drawn until that many reached their point (at most
five times as many drawn).

Usage: fault_trials.py --rdsm BUILD/rdsm --apps BUILD/apps [--trials N] [--reached]
                       [--seed S] [--nodes 2,4] [--stops FRACTION] [--json FILE]
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys
import threading
import time
import uuid

# Small runs of apps that exercise every step: locks, barriers, migration,
# prefetch, whole-page writes.
APPS = [
    ("stress", ["--seeds", "1:3"]),
    ("sor", ["-m", "256", "-n", "256", "-i", "8"]),
    ("radix", ["--size", "test"]),
    ("water", ["--size", "test"]),
    ("lu", ["--size", "test"]),
]

PRESETS = ["async", "ardmar", "draw", "newgen", "genima", "rdsm"]

# Points and the presets that reach them (axes of presets.cpp).
ONE_SIDED_FETCH = {"ardmar", "newgen", "genima", "rdsm"}
MESSAGE_FETCH = {"async", "draw"}
ONE_SIDED_DIFF = {"draw", "newgen", "genima", "rdsm"}
MESSAGE_DIFF = {"async", "ardmar"}
POINTS = {
    "fetch": set(PRESETS),
    "fetch_serve": MESSAGE_FETCH,
    "diff_version": ONE_SIDED_DIFF,
    "diff_apply": MESSAGE_DIFF,
    "whole_page": {"rdsm"},
    "lock_held": set(PRESETS),
    "barrier": set(PRESETS),
    "home_claim": set(PRESETS),
    "home_migration": {"rdsm"},
    "refresh": {"rdsm"},
}
DEATH_TO_EXIT_S = 2.0
STOP_HANG_TIMEOUT_S = 1


def job_processes(marker):
    """Pids of live processes whose environment holds the marker."""
    found = []
    needle = ("RDSM_TRIAL_MARK=" + marker).encode()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/environ" % pid, "rb") as f:
                env = f.read()
            with open("/proc/%s/stat" % pid) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if needle in env.split(b"\0") and state != "Z":
            found.append(int(pid))
    return found


def shm_entries():
    try:
        return set(os.listdir("/dev/shm"))
    except OSError:
        return set()


def run_trial(rdsm, apps_dir, app, args, preset, point, node, visit, nodes, timeout, action="die"):
    marker = uuid.uuid4().hex
    env = dict(os.environ, RDSM_FAULT="%s:%d:%d:%s" % (point, node, visit, action), RDSM_TRIAL_MARK=marker)
    cmd = [rdsm, "run", "-n", str(nodes), "--protocol", preset, "--quiet", "--timeout", str(timeout)]
    if action == "stop":
        cmd += ["--hang-timeout", str(STOP_HANG_TIMEOUT_S)]
    cmd += [os.path.join(apps_dir, app)] + args
    before = shm_entries()
    start = time.monotonic()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines, death = [], [None]

    def read_stderr():
        for line in p.stderr:
            if death[0] is None and "fault injection" in line:
                death[0] = time.monotonic()
            lines.append(line)

    reader = threading.Thread(target=read_stderr)
    reader.start()
    status = p.wait()
    end = time.monotonic()
    reader.join()
    err = "".join(lines)
    rec = {"app": app, "preset": preset, "point": point, "node": node, "visit": visit, "nodes": nodes,
           "action": action, "status": status, "seconds": round(end - start, 3)}
    if death[0] is None:
        rec["verdict"] = "not reached" if status == 0 else "FAIL: failed without the injected fault"
        if status != 0:
            rec["stderr"] = err[-2000:]
        return rec
    problems = []
    if status == 0:
        problems.append("exit status 0 after a node died")
    lag = end - death[0]
    limit = DEATH_TO_EXIT_S + (STOP_HANG_TIMEOUT_S if action == "stop" else 0)
    rec["death_to_exit_s"] = round(lag, 3)
    if lag > limit:
        problems.append("job ended %.2f s after the node %s (limit %.1f s)" %
                        (lag, "stopped" if action == "stop" else "died", limit))
    verb = "stops" if action == "stop" else "dies"
    if not re.search(r"node %d\b.*%s at %s\b" % (node, verb, re.escape(point)), err):
        problems.append("no message names node %d and point %s" % (node, point))
    if not re.search(r"error: node %d \(pid \d+\)" % node, err):
        problems.append("the launcher's message does not name node %d" % node)
    if action == "stop" and "no progress" not in err:
        problems.append("the launcher does not say the stopped node made no progress")
    left = job_processes(marker)
    if left:
        time.sleep(0.5)
        left = job_processes(marker)
    if left:
        problems.append("processes left: %s" % left)
    new = shm_entries() - before
    if new:
        time.sleep(0.2)
        new = {n for n in new if os.path.exists(os.path.join("/dev/shm", n))}
    if new:
        problems.append("left in /dev/shm: %s" % sorted(new))
    rec["verdict"] = "PASS" if not problems else "FAIL: " + "; ".join(problems)
    if problems:
        rec["stderr"] = err[-2000:]
    return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rdsm", required=True, help="the rdsm launcher")
    ap.add_argument("--apps", required=True, help="directory of the app binaries")
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--seed", type=int, default=None, help="seed of the trial draw (default: random, printed)")
    ap.add_argument("--nodes", default="2,4", help="comma-separated node counts to draw from")
    ap.add_argument("--timeout", type=int, default=60, help="rdsm run --timeout per trial")
    ap.add_argument("--stops", type=float, default=0.25,
                    help="fraction of trials whose node stops (SIGSTOP) instead of dying")
    ap.add_argument("--reached", action="store_true",
                    help="--trials counts the trials whose fault happened, not the trials drawn")
    ap.add_argument("--json", help="write every trial's record here")
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    node_counts = [int(x) for x in a.nodes.split(",")]
    print("fault trials: seed %d, %d trials" % (seed, a.trials), flush=True)
    records, failures = [], 0
    draws = 5 * a.trials if a.reached else a.trials
    for t in range(draws):
        if a.reached and sum(1 for r in records if r["verdict"] != "not reached") >= a.trials:
            break
        app, args = rng.choice(APPS)
        point = rng.choice(sorted(POINTS))
        preset = rng.choice(sorted(POINTS[point]))
        nodes = rng.choice(node_counts)
        node = rng.randrange(nodes)
        visit = rng.choice([1, 1, 2, 5])
        action = "stop" if rng.random() < a.stops else "die"
        rec = run_trial(a.rdsm, a.apps, app, args, preset, point, node, visit, nodes, a.timeout, action)
        records.append(rec)
        print("trial %2d: %-6s %-7s %-15s node %d/%d visit %d %-4s: %s (%.2f s)" %
              (t, app, preset, point, node, nodes, visit, action, rec["verdict"], rec["seconds"]), flush=True)
        if rec["verdict"].startswith("FAIL"):
            failures += 1
            sys.stdout.write(rec.get("stderr", ""))
    reached = sum(1 for r in records if r["verdict"] == "PASS")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"seed": seed, "trials": records}, f, indent=1)
    print("fault trials: %d passed, %d not reached, %d failed (seed %d)" %
          (reached, len(records) - reached - failures, failures, seed))
    if a.reached and reached + failures < a.trials:
        print("FAIL: only %d of %d trials drawn reached their point" % (reached + failures, len(records)))
        return 1
    if failures:
        print("FAIL")
        return 1
    if reached == 0:
        print("FAIL: no trial reached its point")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
