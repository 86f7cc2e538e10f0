#!/usr/bin/env bash
# bench/html.sh - the HTML page of a javac profile (issue 38: at most 1 MB, interactive within
# 1 s in Chromium). javac in a loop: one JVM running the JDK's compiler (javax.tools) over
# BENCH_HTML_CLASSES generated classes of 25 methods each (default 120), BENCH_HTML_LOOPS times
# (default 2), profiled by `jitprof profile -o x.html` (agent, frame pointers, call graphs).
# Prints the page's size, its parts, and the time from navigation to the flame graph drawn in
# headless Chromium (tests/browser/html_first_screen.js, 1366x768), best of BENCH_RUNS (default
# 5) loads, when node, chromium and tests/browser's npm packages are there. The page is kept
# as bench/out/html-javac.html.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib/java_env.sh
java_bench_env html
command -v javac >/dev/null || { echo "html bench: javac not installed, skipped"; exit 0; }
classes=${BENCH_HTML_CLASSES:-120}
loops=${BENCH_HTML_LOOPS:-2}
runs=${BENCH_RUNS:-5}
src=$work/src
mkdir -p "$src/g" "$work/out" "$work/cls"
# Classes that call each other, with generics, loops and collections: work for javac's
# attribution, flow analysis and code generation alike.
for ((c = 0; c < classes; c++)); do
	{
		echo "package g; import java.util.*; public class C$c {"
		for ((m = 0; m < 25; m++)); do
			echo "  public static int m$m(List<String> l, int x) { int s = 0;" \
			     "for (String e : l) { if (e.length() > x) s += e.hashCode() ^ $m;" \
			     "else s -= x * $c; } Map<String, Integer> h = new HashMap<>();" \
			     "h.put(\"k$m\", s); return h.getOrDefault(\"k\", s) + (x > 3 ?" \
			     "C$(((c + 1) % classes)).m$(((m + 1) % 25))(l, x - 1) : 0); }"
		done
		echo "}"
	} > "$src/g/C$c.java"
done
cat > "$work/Loop.java" <<'EOF'
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

public class Loop {
	public static void main(String[] a) {
		JavaCompiler jc = ToolProvider.getSystemJavaCompiler();
		List<String> args = new ArrayList<>(List.of("-d", a[1]));
		for (File f : new File(a[0]).listFiles())
			args.add(f.getPath());
		for (int i = 0; i < Integer.parseInt(a[2]); i++)
			if (jc.run(null, null, null, args.toArray(new String[0])) != 0)
				System.exit(1);
	}
}
EOF
javac -d "$work/cls" "$work/Loop.java"
# profile looks for the agent beside its binary (the private copy)
for so in libjitprof-agent.so libagent.so; do
	[ -f "$build/$so" ] && cp "$build/$so" "$work/"
done
(cd "$work" && "$jitprof" profile -q -o "$work/javac.html" -- java -cp "$work/cls" Loop \
	"$src/g" "$work/out" "$loops" > /dev/null)
samples=$("$jitprof" report -q -i "$work/javac.jitprof/perf.jit.data" --json |
	sed -n 's/.*"samples": \([0-9]*\),.*/\1/p' | awk 'NR == 1')
python3 - "$work/javac.html" "$samples" <<'EOF'
import json, sys
page = open(sys.argv[1], encoding='utf-8').read()
tag = '<script id="data" type="application/json">'
i = page.index(tag) + len(tag)
data = json.loads(page[i:page.index('</script>', i)])
parts = ', '.join('%s %.0f KiB' % (k, len(json.dumps(v, separators=(',', ':'))) / 1024)
		  for k, v in data.items() if len(json.dumps(v)) > 4096)
print('html bench: javac, %s samples: page %.0f KiB (%s); %d tree nodes, %d names' %
      (sys.argv[2], len(page.encode()) / 1024, parts, len(data['tree']['c']), len(data['names'])))
EOF
mkdir -p bench/out && cp "$work/javac.html" bench/out/html-javac.html	# kept to look at
if command -v node >/dev/null && [ -x /usr/bin/chromium ] &&
   [ -d tests/browser/node_modules/puppeteer-core ]; then
	node tests/browser/html_first_screen.js "$work/javac.html" "$work/first.png" "$runs" |
		sed -n 's/.*"readyMs":\([0-9]*\),"loadMs":\([0-9]*\),.*/  Chromium: flame graph drawn in \2 ms, page ready in \1 ms (best of '"$runs"')/p'
else
	echo "  Chromium: node, chromium or tests/browser's npm packages missing, not measured"
fi
