#!/usr/bin/env python3
"""report_deopts_jfr.py LOG.json JFR.json - generations' ends from HotSpot's compilation log
(the truth here: the same run wrote both) against those from the JVM's Flight Recording: every
generation the recording says a trap ended, the log says so with the same reason; the
unstable_if trap that ends Deopts.branchy's C2 code is found by both when the log has it; and how many of the log's
trap ends the recording explains (it starts with the JVM's live phase, so traps before are
not in it)."""
import json
import sys


def ends(path):
    out = {}
    for m in json.load(open(path))["generations"]["methods"]:
        for g in m["generations"]:
            e = g.get("ended_by") or {}
            out[g.get("compile_id")] = (m["method"], e.get("kind"), e.get("reason"))
    return out


log, jfr = ends(sys.argv[1]), ends(sys.argv[2])
log_deopt = {k: v for k, v in log.items() if v[1] == "deopt"}
jfr_deopt = {k: v for k, v in jfr.items() if v[1] == "deopt"}
same = [k for k in log_deopt if jfr.get(k) == log_deopt[k]]
wrong = [(k, log.get(k), v) for k, v in jfr_deopt.items() if log.get(k) != v]
print("JFR explains %d of the log's %d trap ends; %d ends the log does not give" %
      (len(same), len(log_deopt), len(wrong)))
for w in wrong:
    print("FAIL compile %s: log %s, recording %s" % w)
# The recording begins once JFR has started (in the agent's VMInit, after JFR's own class
# generation, whose traps it cannot see): every trap end after that is in it.
if log_deopt and not same:
    print("FAIL the recording explains none of the log's trap ends")
def branchy(ends):
    return [k for k, v in ends.items() if "Deopts.branchy" in v[0] and v[1] == "deopt" and
            v[2] == "unstable_if"]


if not branchy(log):
    print("SKIP branchy: the log has no unstable_if end for it in this run")
elif branchy(jfr) == branchy(log):
    print("OK branchy trap")
else:
    print("FAIL branchy's unstable_if trap: log %s, recording %s" % (branchy(log), branchy(jfr)))
