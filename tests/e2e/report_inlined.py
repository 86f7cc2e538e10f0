#!/usr/bin/env python3
# report_inlined.py - the checks of report_inlined.c on samples/java Inlined's stacks, by
# construction: the only calls between Inlined's methods are those of CALLS (its source says
# so), so in every folded stack two neighbouring Inlined frames (or two with only a vtable or
# itable stub between them) must be one of those calls, caller first. An inlined frame put
# under a sibling (outer;post_[i];Box.work: post() is done before work() is called) or a
# caller lost (drive;vtable stub, without kernel_[i]) breaks that.
#   stacks MODE < folded: MODE dwarf (every pair) or fp (perf's frame-pointer chain: a leaf
#     that has not set up its frame yet hides its caller, so the leaf's caller may be any
#     method it is reached from, and only chains reaching call_stub are judged); prints
#     "pairs N chain N stub N", exit 1 with the bad stacks.
#   html FILE.html FOLDED: every frame of the page's callees' tree with per-generation counts
#     has them summing to its samples, which are the folded stacks' through its path; an
#     inlined frame's are generations of the frame it was inlined into; prints "frames N
#     inlined N", exit 1 with what is wrong.
#   generations FOLDED < `--generations --method Inlined`: its rows of inlined methods sum to
#     the folded stacks whose innermost frame is that method inlined; prints "inlined methods N
#     rows N", exit 1 with the difference.
import json
import re
import sys

P = "jitprof.samples.Inlined"
CALLS = {("main", "run"), ("run", "outer"), ("run", "drive"), ("outer", "make"),
         ("outer", "post"), ("outer", "Box.work"), ("make", "Box.<init>"),
         ("drive", "kernel"), ("kernel", "area")}
STUBS = ("vtable stub", "itable stub")


def method(frame):
    """(short name, inlined) of an Inlined frame, (None, inlined) of any other."""
    inl = frame.endswith("_[i]")
    base = frame[:-4] if inl else frame
    if not base.startswith(P):
        return None, inl
    m = re.match(r"[.$]((?:[A-Za-z]+\.)?[<>A-Za-z]+)\(", base[len(P):])
    if not m:
        return None, inl
    name = m.group(1)
    return ("area" if re.fullmatch(r"[ABCD]\.area", name) else name), inl


def reach():
    """Every (a, b) with b reached from a through CALLS."""
    r = set(CALLS)
    while True:
        more = {(a, d) for (a, b) in r for (c, d) in r if b == c} - r
        if not more:
            return r
        r |= more


def folded(text):
    for line in text.splitlines():
        stack, _, n = line.rpartition(" ")
        if stack and n.isdigit():
            yield stack.split(";")[1:], int(n)


def stacks(mode, text):
    far = reach()
    pairs = chain = stub = 0
    bad = []
    for frames, n in folded(text):
        # fp: a leaf without its frame set up leaves rbp to whatever it holds, and a chain
        # from a stale rbp need not reach Java's entry: only stacks that do are judged.
        if mode == "fp" and "call_stub" not in frames:
            continue
        prev = None	# (index, name) of the last Inlined frame, a stub at most since
        for i, f in enumerate(frames):
            name, inl = method(f)
            if name is None:
                if f not in STUBS:
                    prev = None
                elif prev and frames[prev[0]].endswith("_[i]") and prev[1] == "kernel":
                    stub += n
                continue
            if prev:
                pairs += n
                leaf = all(x.endswith("_[k]") for x in frames[i + 1:])	# user leaf
                ok = (prev[1], name) in (far if mode == "fp" and leaf else CALLS)
                if not ok:
                    bad.append("%d %s" % (n, ";".join(frames)))
                if (prev[1], name) == ("outer", "Box.work") and i == prev[0] + 1:
                    chain += n
            prev = (i, name)
    print("pairs %d chain %d stub %d" % (pairs, chain, stub))
    if bad:
        print("stacks against the source's calls:\n" + "\n".join(bad[:10]))
        return 1
    return 0


def names_of(d):
    out, prev = [], ""
    for e in d["names"]:
        k, rest = e.split(":", 1)
        prev = prev[:int(k)] + rest
        out.append(prev)
    return out


def depths(t):
    steps = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXY"
    d, pos, u = [0] * len(t["c"]), 0, t["u"]
    for j in range(1, len(d)):
        if u[pos] == "~":
            e = u.index(";", pos)
            up, pos = int(u[pos + 1:e]), e + 1
        else:
            up, pos = steps.index(u[pos]), pos + 1
        d[j] = d[j - 1] + 1 - up
    return d


def html(page, folded_text):
    h = open(page).read()
    d = json.loads(re.search(r'<script id="data" type="application/json">(.*?)</script>',
                             h, re.S).group(1))
    t, names = d["tree"], names_of(d)
    dep, path, paths, parent = depths(t), [], [], []
    last = {}
    for j in range(len(dep)):
        path = path[:dep[j] - 1] + ([names[t["n"][j]]] if j and t["n"][j] >= 0 else [])
        paths.append(tuple(path))
        parent.append(last.get(dep[j] - 1, -1))
        last[dep[j]] = j
    gens = {}
    for node, gen, tier, n in d["gens"]:
        gens.setdefault(node, []).append((gen, tier, n))
    through = {}
    for line in folded_text.splitlines():
        stack, _, n = line.rpartition(" ")
        fr = tuple(stack.split(";"))
        for k in range(1, len(fr) + 1):
            through[fr[:k]] = through.get(fr[:k], 0) + int(n)
    errs, inlined = [], 0
    for j, g in gens.items():
        total = sum(n for _, _, n in g)
        if total != t["c"][j] or through.get(paths[j]) != total:
            errs.append("%s: generations %d, frame %d, folded %s" %
                        (";".join(paths[j]), total, t["c"][j], through.get(paths[j])))
        if not paths[j][-1].endswith("_[i]"):
            continue
        inlined += 1
        host = parent[j]
        while host > 0 and paths[host][-1].endswith("_[i]"):
            host = parent[host]
        hg = {(gen, tier) for gen, tier, _ in gens.get(host, [])}
        if not hg or not {(gen, tier) for gen, tier, _ in g} <= hg:
            errs.append("%s: generations %s, not of the frame it is inlined into %s" %
                        (";".join(paths[j]), g, sorted(hg)))
    print("frames %d inlined %d" % (len(gens), inlined))
    if errs:
        print("\n".join(errs[:10]))
        return 1
    return 0


def generations(gens_text, folded_text):
    """--generations --method's inlined rows: per method, the samples of folded stacks whose
    innermost frame is the method inlined (the rows must sum to them, for every method)."""
    said, rows = {}, 0
    for m in re.finditer(r"^(\S.*)_\[i\]  \(pid \d+, inlined: (\d+) samples.*\n.*\n((?:.*\n)*?)"
                         r"(?:\n|\Z)", gens_text, re.M):
        got = sum(int(r.split()[2]) for r in m.group(3).splitlines() if r.strip())
        if got != int(m.group(2)):
            print("%s: rows %d, total %s" % (m.group(1), got, m.group(2)))
            return 1
        said[m.group(1)] = said.get(m.group(1), 0) + got
        rows += 1
    want = {}
    for frames, n in folded(folded_text):
        if frames and frames[-1].endswith("_[i]") and frames[-1].startswith(P):
            want[frames[-1][:-4]] = want.get(frames[-1][:-4], 0) + n
    print("inlined methods %d rows %d" % (len(want), rows))
    if said != want:
        print("--generations says %s, the folded stacks %s" % (said, want))
        return 1
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "stacks":
        sys.exit(stacks(sys.argv[2], sys.stdin.read()))
    if sys.argv[1] == "generations":
        sys.exit(generations(sys.stdin.read(), open(sys.argv[2]).read()))
    sys.exit(html(sys.argv[2], open(sys.argv[3]).read()))
