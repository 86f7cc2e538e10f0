#!/usr/bin/env python3
"""agent_pcdescs.py NMETHODS.txt COMPANION.json - every PcDesc HotSpot keeps for an nmethod
that has a scope reaches the agent: the JVM's own -XX:+PrintNMethods gives each nmethod's
"scopes pcs" section (16-byte PcDescs: pc offset, scope and object offsets, flags, in
pcDesc.hpp from JDK 17 to 25), of which two are the table's sentinels (the lower and upper
offset limits, no scope); the agent's inline records (JVMTI compile_info) list one entry per
PcDesc with a scope. Equal counts, per compile id, mean VMStructs could add nothing."""
import json
import re
import sys

txt = open(sys.argv[1], errors="replace").read()
blocks = re.findall(r"Compiled method \((?:c1|c2)\)\s+\d+\s+(\d+)\s.*?scopes pcs\s+\[[^\]]*\] = (\d+)",
                    txt, re.S)
jvm = {int(cid): int(size) // 16 for cid, size in blocks}
recs = json.load(open(sys.argv[2]))["records"]
ids = {r["code_index"]: r["compile_id"] for r in recs if r["type"] == "LOAD_INFO"}
agent = {ids.get(r["code_index"]): len(r["pcs"]) for r in recs if r["type"] == "INLINE"}
same = bad = 0
for cid, n in agent.items():
    if cid is None or cid not in jvm:
        continue
    if jvm[cid] - 2 == n:
        same += 1
    else:
        bad += 1
        print("FAIL compile %d: the nmethod has %d PcDescs (2 sentinels), the agent %d" %
              (cid, jvm[cid], n))
print("%s %d compiles: the agent has every PcDesc with a scope" % ("OK" if same and not bad
                                                                  else "FAIL", same))
