#!/usr/bin/env python3
"""Writes the events HTA marked critical in an overlaid trace (args.critical == 1, ph "X"), one
per line as "ts_us dur_us name", in file order, and the critical-path flows HTA drew, as
"# flows TYPE COUNT" lines. Used once to record HTA's own output for the critical-path tests
(testdata/README.md); HTA's test data carries the overlaid trace it wrote.

With --flows it writes instead each critical-path arrow HTA drew as "TYPE START_TS END_TS" (µs,
as HTA wrote them), sorted: the overlay test compares paratune's arrows with them.

usage: hta-critical-events.py [--flows] OVERLAID_TRACE.json.gz > OUT.txt
"""
import collections
import gzip
import json
import sys

args = sys.argv[1:]
only_flows = args[:1] == ["--flows"]
events = json.load(gzip.open(args[-1]))["traceEvents"]
if only_flows:
    ends = collections.defaultdict(dict)
    for e in events:
        if e.get("cat") == "critical_path" and e["ph"] in ("s", "f"):
            ends[e["id"]][e["ph"]] = e
    for line in sorted(f'{p["s"]["args"]["type"]} {p["s"]["ts"]} {p["f"]["ts"]}' for p in ends.values()):
        print(line)
    sys.exit(0)
flows = collections.Counter(
    e["args"]["type"] for e in events if e.get("cat") == "critical_path" and e["ph"] == "s" and e["args"].get("critical")
)
for kind, count in sorted(flows.items()):
    print(f"# flows {kind} {count}")
for e in events:
    if e["ph"] == "X" and e.get("args", {}).get("critical") == 1:
        print(f'{e["ts"]} {e["dur"]} {e["name"]}')
