# trace_check.py TRACE STATS: the timeline trace (rdsm run --trace) is
# trace-event JSON whose counts, on every node after its last "statistics
# reset" marker, are the job's statistics (rdsm run --stats), and whose
# message arrows each start at a send.
import json, sys, collections
trace, stats = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
ev = trace["traceEvents"]
def fail(msg): sys.exit("trace: " + msg)
# The counts after each node's last statistics reset must be the statistics.
resets = {}
for e in ev:
    if e["name"] == "statistics reset": resets[e["pid"]] = max(resets.get(e["pid"], -1), e["ts"])
pairs = {"read fault": "read_faults", "write fault": "write_faults", "fetch": "pages_fetched",
         "barrier wait": "barriers", "send": "messages_sent"}
for n in stats["per_node"]:
    r = n["rank"]
    if r not in resets: fail("node %d has no statistics reset marker" % r)
    mine = [e for e in ev if e["pid"] == r and e.get("ph") in ("X", "i") and e["ts"] >= resets[r]]
    c = collections.Counter(e["name"] for e in mine)
    c["lock"] = sum(1 for e in mine if e["name"] == "lock" and e["args"]["acquired"])
    for name, field in list(pairs.items()) + [("lock", "lock_acquires")]:
        if c[name] != n[field]: fail("node %d: %d %s events, statistics say %s %d" % (r, c[name], name, field, n[field]))
starts = {e["id"] for e in ev if e.get("ph") == "s"}
ends = [e["id"] for e in ev if e.get("ph") == "f"]
if any(i not in starts for i in ends): fail("a message arrow ends where none started")
print("ok", dict(collections.Counter(e["name"] for e in ev if e.get("ph") in ("X", "i"))))
