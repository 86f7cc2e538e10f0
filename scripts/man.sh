#!/bin/sh
# scripts/man.sh JITPROF OUTDIR - the man pages, generated from the one source of truth: the
# commands' own --help texts (help2man). jitprof.1 lists the commands; jitprof-CMD.1 is each
# command's --help. The one-line NAME of each page is its summary in `jitprof --help`.
set -eu
exe=$1
out=$2
ver=$("$exe" --version | sed 's/^jitprof //')
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
help2man --no-info --section=1 --version-string="$ver" \
	--name="make JIT-compiled code visible to perf-style profiling" \
	--output="$tmp/jitprof.1" "$exe"
# "  name   summary" lines under "commands:".
"$exe" --help | sed -n '/^commands:/,/^$/p' | sed -n 's/^  \([a-z-]*\) *\(.*\)/\1 \2/p' |
while read -r cmd summary; do
	help2man --no-info --section=1 --version-string="$ver" --name="$summary" \
		--output="$tmp/jitprof-$cmd.1" "$exe $cmd"
	# help2man titles the page after the program's --version line ("jitprof"): the page
	# is jitprof-CMD(1), as man(1) and apropos list it.
	title=$(printf 'JITPROF-%s' "$cmd" | tr '[:lower:]' '[:upper:]')
	sed -i "s/^\.TH [^\"]* \"1\"/.TH $title \"1\"/" "$tmp/jitprof-$cmd.1"
done
mv "$tmp"/*.1 "$out"/
