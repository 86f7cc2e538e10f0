#!/usr/bin/env python3
# coverage.py - reads `jitprof report --sort dso,sym,srcline --json` on stdin and prints the
# share of samples in compiled Java methods that have no source line. A Java method is a row
# in a jitted ELF whose symbol is a demangled JVM method ("pkg.Class.name(args)"); stubs,
# adapters and the interpreter are not. Methods listed in argv[1] (one readable name a line:
# methods whose loads carry no line table at all, e.g. native wrappers) are counted apart.
import json
import re
import sys

JAVA = re.compile(r"^\[\.\] [^ (]+\.[^ (]+\(")
nolines = set()
if len(sys.argv) > 1:
    with open(sys.argv[1]) as f:
        nolines = {l.rstrip("\n") for l in f if l.strip()}
rows = json.load(sys.stdin)["rows"]
java = missing = tableless = 0
for r in rows:
    if not r.get("dso", "").startswith("jitted-") or not JAVA.match(r.get("sym", "")):
        continue
    name = r["sym"][4:]
    if name in nolines:
        tableless += r["samples"]
        continue
    java += r["samples"]
    if r.get("srcline", "??:0").startswith("??"):
        missing += r["samples"]
pct = 100.0 * missing / java if java else 0.0
print(f"{java} samples in Java methods with a line table, {missing} without a line "
      f"({pct:.2f}%); {tableless} in methods without any line table")
