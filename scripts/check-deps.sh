#!/usr/bin/env bash
# check-deps.sh - `make check-deps`: every #include "..." of the tree's modules against the
# allowed direction in mk/deps.mk (a module includes its own files and the public headers of
# the modules it USES, never another module's *_int.h; MODULES lists each module before the
# ones it uses), and the dependency table in docs/ARCHITECTURE.md against the same data.
#   scripts/check-deps.sh              check, exit 1 with one line per violation
#   scripts/check-deps.sh --write-doc  rewrite the table in docs/ARCHITECTURE.md
# Tests, benches and fuzz targets are not modules: they may include what they test.
set -uo pipefail
# CHECK_DEPS_ROOT: another tree to check (the tests give it a small one with violations).
cd "${CHECK_DEPS_ROOT:-$(dirname "$0")/..}" || exit 2
DATA=mk/deps.mk
DOC=docs/ARCHITECTURE.md

val() {	# val NAME -> the words after "NAME :=" in DATA
	sed -n "s/^$1[[:space:]]*:=[[:space:]]*//p" "$DATA"
}

read -r -a modules <<<"$(val MODULES)"
declare -A dir uses rank
for i in "${!modules[@]}"; do
	m=${modules[$i]}
	dir[$m]=$(val "DIR_$m")
	uses[$m]=$(val "USES_$m")
	rank[$m]=$i
done

# The module a header path belongs to: the one whose directory is the header's directory.
module_of() {
	local d=${1%/*} m
	[ "$d" = "$1" ] && d=.
	for m in "${modules[@]}"; do
		[ "${dir[$m]}" = "$d" ] && { echo "$m"; return; }
	done
}

table() {
	echo "| module | directory | may use (public headers; linked after it) |"
	echo "|---|---|---|"
	local m u list
	for m in "${modules[@]}"; do
		list=""
		for u in ${uses[$m]}; do list+="${list:+, }\`${dir[$u]}/\`"; done
		echo "| $m | \`${dir[$m]}/\` | ${list:-(nothing of ours)} |"
	done
}

BEGIN='<!-- deps:begin (generated from mk/deps.mk by scripts/check-deps.sh --write-doc) -->'
END='<!-- deps:end -->'

if [ "${1:-}" = "--write-doc" ]; then
	t=$(mktemp)
	table >"$t"
	awk -v b="$BEGIN" -v e="$END" -v t="$t" '
		$0 == b { print; while ((getline l < t) > 0) print l; skip = 1; next }
		$0 == e { skip = 0 }
		!skip' "$DOC" >"$DOC.new" && mv "$DOC.new" "$DOC"
	rm -f "$t"
	exit 0
fi

bad=0
say() { echo "check-deps: $*" >&2; bad=1; }

# The order: every module before what it uses.
for m in "${modules[@]}"; do
	[ -d "${dir[$m]}" ] || say "$DATA: $m: no directory ${dir[$m]}"
	for u in ${uses[$m]}; do
		[ -n "${rank[$u]+x}" ] || { say "$DATA: $m uses unknown module $u"; continue; }
		[ "${rank[$u]}" -gt "${rank[$m]}" ] ||
			say "$DATA: $m uses $u but MODULES lists $u first (a cycle, or the order is wrong)"
	done
done

# Every include of every module file.
for m in "${modules[@]}"; do
	for f in "${dir[$m]}"/*.[ch]; do
		[ -e "$f" ] || continue
		while IFS=: read -r line inc; do
			t=$(module_of "$inc")
			if [ -z "$t" ]; then
				say "$f:$line: includes \"$inc\", which is in no module"
			elif [ "$t" != "$m" ]; then
				case " ${uses[$m]} " in
				*" $t "*) ;;
				*) say "$f:$line: $m may not include \"$inc\" ($t is not in USES_$m)"; continue ;;
				esac
				case "$inc" in
				*_int.h) say "$f:$line: \"$inc\" is internal to $t" ;;
				esac
			fi
		done < <(awk '/^[ \t]*#[ \t]*include[ \t]*"/ {
				s = $0; sub(/^[^"]*"/, "", s); sub(/".*/, "", s); print FNR ":" s }' "$f")
	done
done

# Every subdirectory of recorder/ with C files is a module (the link order names them all).
for d in recorder/*/; do
	d=${d%/}
	ls "$d"/*.c >/dev/null 2>&1 || continue
	[ -n "$(module_of "$d/x.h")" ] || say "$d: not a module in $DATA"
done

# The table in the architecture page is this data.
want=$(table)
got=$(awk -v b="$BEGIN" -v e="$END" '$0 == e { p = 0 } p; $0 == b { p = 1 }' "$DOC")
[ "$want" = "$got" ] || say "$DOC: the dependency table differs from $DATA (run $0 --write-doc)"

[ "$bad" -eq 0 ] && echo "check-deps: ${#modules[@]} modules, every include follows $DATA"
exit "$bad"
