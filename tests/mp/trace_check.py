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
# One-sided operations (ops instants, for rdsm sim): on other nodes only,
# each inside a slice of its thread; a one-sided fetch (one without a
# message) holds a read of its home, and a batch of its copy counts and
# version reads before it.
nodes = len(stats["per_node"])
ops = [e for e in ev if e["name"] == "ops"]
# The shm fabric records them all, and the trace says so (rdsm sim then
# knows that a node with none made none).
if trace.get("otherData", {}).get("operations") != "recorded":
    fail("the trace does not say its operations were recorded: %r" % trace.get("otherData"))
for e in ops:
    a = e["args"]
    if a["op"] not in ("atomic", "get", "put", "batch") or a["count"] < 1 or a["to"] == e["pid"] or not 0 <= a["to"] < nodes:
        fail("node %d: a bad ops record %r" % (e["pid"], a))
by_thread = collections.defaultdict(list)
for e in ev:
    if e.get("ph") in ("X", "i") and e["name"] in ("ops", "send"):
        by_thread[(e["pid"], e["tid"])].append(e)
for e in ev:
    if e["name"] != "fetch" or e.get("ph") != "X":
        continue
    inside = [x for x in by_thread[(e["pid"], e["tid"])] if e["ts"] <= x["ts"] <= e["ts"] + e["dur"]]
    if any(x["name"] == "send" for x in inside):
        continue  # fetched by message
    if not any(x["name"] == "ops" and x["args"]["op"] == "get" and x["args"]["to"] == e["args"]["home"] for x in inside):
        fail("node %d: a fetch from node %d at %.3f us holds no read of it (%r)" % (e["pid"], e["args"]["home"], e["ts"], inside))
    if not any(x["name"] == "ops" and x["args"]["op"] == "batch" and x["args"]["to"] == e["args"]["home"] for x in inside):
        fail("node %d: a fetch from node %d at %.3f us holds no batch of counts and versions (%r)" % (e["pid"], e["args"]["home"], e["ts"], inside))
held = {(e["pid"], e["args"]["lock"]) for e in ev if e["name"] == "lock" and e.get("ph") == "X" and e["args"]["acquired"]}
for e in ev:
    if e["name"] == "unlock" and (e["pid"], e["args"]["lock"]) not in held:
        fail("node %d unlocks lock %d, which it never acquired" % (e["pid"], e["args"]["lock"]))
starts = {e["id"] for e in ev if e.get("ph") == "s"}
ends = [e["id"] for e in ev if e.get("ph") == "f"]
if any(i not in starts for i in ends): fail("a message arrow ends where none started")
print("ok", dict(collections.Counter(e["name"] for e in ev if e.get("ph") in ("X", "i"))))
