# report_deopts.py - the checks of tests/e2e/report_deopts.c on `jitprof report --generations
# --json --jvm-log` of samples/java/Deopts: argv = json file, codelist file, schema file,
# Deopts.java (its "// MARK <what>" comments say which source line each line number must be).
# Prints "OK ..." lines, or "FAIL ..." lines the C test reports; "NOTE ..." for skipped parts.
import json
import re
import sys

doc = json.load(open(sys.argv[1]))["generations"]
codelist = open(sys.argv[2]).read()
fails = []
marks = {}
for no, text in enumerate(open(sys.argv[4]), 1):
    m = re.search(r"// MARK (unstable_if|call \w+)", text)
    if m:
        marks[m.group(1)] = no
if set(marks) != {"unstable_if", "call area"}:
    fails.append("Deopts.java markers: %s" % marks)
try:
    import jsonschema
    jsonschema.validate(doc, json.load(open(sys.argv[3])))
    print("OK schema")
except ImportError:
    print("NOTE schema not checked: python3-jsonschema is not installed")
except jsonschema.ValidationError as e:
    fails.append("schema: %s at %s" % (e.message, list(e.absolute_path)))

def gens_of(name):
    for m in doc["methods"]:
        if m["method"].startswith("jitprof.samples.Deopts." + name + "("):
            return m["generations"]
    return []

# The first C2 (level 4) normal-entry generation of each method ends the expected way.
expect = {
    "branchy": ("deopt", {"unstable_if"}),
    "poly": ("deopt", {"class_check", "bimorphic", "bimorphic_or_optimized_type_check"}),
    "cha": ("dependency", None),
}
for name, (kind, reasons) in expect.items():
    gens = gens_of(name)
    c2 = sorted((g for g in gens if g["level"] == 4 and g["osr_bci"] is None),
                key=lambda g: g["gen"])
    if not c2:
        fails.append("%s: no C2 generation in %s" % (name, [(g["gen"], g["level"]) for g in gens]))
        continue
    # HotSpot may recompile a method at C2 before the phase that breaks it (a C2 generation
    # made not entrant by a recompilation of its own, with no trap or dependency to report):
    # that generation ends "replaced", truthfully. The generation that meets the phase is the
    # first one ended any other way; the ones replaced before it are printed.
    while len(c2) > 1 and c2[0]["ended_by"]["kind"] == "replaced":
        print("NOTE %s gen %d: replaced by gen %d before its phase" % (name, c2[0]["gen"],
                                                                      c2[1]["gen"]))
        c2 = c2[1:]
    e = c2[0]["ended_by"]
    if e["kind"] != kind or (reasons and e["reason"] not in reasons):
        fails.append("%s gen %d: ended by %s, expected %s %s" % (name, c2[0]["gen"], e, kind,
                                                               reasons or ""))
    else:
        print("OK %s gen %d ended by %s %s" % (name, c2[0]["gen"], e["kind"], e["reason"]))
    if kind == "deopt" and (e["method"] is None or "Deopts" not in e["method"]):
        fails.append("%s: trap without its method: %s" % (name, e))
    # The trap's bci on its line: the agent's inline stacks (version 2) hold (method, bci).
    if name == "branchy" and e["kind"] == "deopt":
        if e["line"] != marks.get("unstable_if"):
            fails.append("branchy: unstable_if trap at line %s, the pruned if is line %s (%s)"
                         % (e["line"], marks.get("unstable_if"), e))
        else:
            print("OK branchy trap bci %s at line %d" % (e["bci"], e["line"]))
    # Call sites of area() inlined into poly: the line of the call, by its bci.
    if name == "poly":
        for g in gens:
            for i in g["inlined"] or []:
                if (i["callee"] or "").endswith(".area") and \
                        (i["caller"] or "").endswith("Deopts.poly") and i["ok"] and \
                        i["line"] is not None and i["line"] != marks.get("call area"):
                    fails.append("poly gen %d: area() inlined at line %s, the call is line %s"
                                 % (g["gen"], i["line"], marks.get("call area")))
    # Active periods: ordered, and normal-entry generations never overlap, but for
    # activations running on in replaced code (its period lasts until its last sample).
    normal = sorted((g for g in gens if g["osr_bci"] is None), key=lambda g: g["gen"])
    for a, b in zip(normal, normal[1:]):
        ran_on = a["active_until_source"] == "last_sample"
        if not (a["active_from"] <= b["active_from"] and
                (ran_on or a["active_until"] <= b["active_from"] + 1e-6)):
            fails.append("%s: gen %d [%f, %f] overlaps gen %d from %f" % (
                name, a["gen"], a["active_from"], a["active_until"], b["gen"], b["active_from"]))
    for g in gens:
        if g["active_until"] < g["active_from"]:
            fails.append("%s gen %d ends before it starts" % (name, g["gen"]))

# The join agrees with the JVM's own list, taken while the program ran.
matched = 0
by_id = {g["compile_id"]: g for m in doc["methods"] for g in m["generations"]
         if g["compile_id"] is not None}
for line in codelist.splitlines():
    m = re.match(r"(\d+) (\d) \d (jitprof\.samples\.Deopts\.(branchy|poly|cha)\(\S*) "
                 r"\[0x[0-9a-f]+, (0x[0-9a-f]+) - ", line)
    if not m:
        continue
    cid, level, begin = int(m.group(1)), int(m.group(2)), int(m.group(5), 16)
    g = by_id.get(cid)
    if g is None:
        fails.append("codelist id %d (%s) is no generation of the report" % (cid, m.group(3)))
    elif g["level"] != level or g["code_addr"] != begin:
        fails.append("codelist id %d: level %d at %#x, report says level %s at %#x" % (
            cid, level, begin, g["level"], g["code_addr"]))
    else:
        matched += 1
if matched < 3:
    fails.append("only %d codelist entries of the three methods matched" % matched)
else:
    print("OK %d codelist entries agree" % matched)
if not doc["jvm_log"] or doc["jvm_log"]["joined"] == 0:
    fails.append("jvm_log: %s" % doc["jvm_log"])
for f in fails:
    print("FAIL " + f)
