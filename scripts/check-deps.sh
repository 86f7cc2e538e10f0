#!/usr/bin/env bash
# check-deps.sh - `make check-deps`: every #include "..." of the tree's modules against the
# allowed direction in mk/deps.mk (a module includes its own files and the public headers of
# the modules it USES, never another module's *_int.h; MODULES lists each module before the
# ones it uses), every call between the modules' built objects against the same direction
# (BUILD=dir: where make put them, default build), and the dependency table in
# docs/ARCHITECTURE.md against the same data. Two rules beyond the direction, from the same file:
# NEVER_<m> names modules <m> may never use whatever USES_<m> says (an include or a call of
# theirs, or a USES_<m> naming them, is refused: only the report's ingest reads perf.data), and
# the objects of the modules NO_OUTPUT lists call no writer (stdio's, write(2)'s, safeio's
# output files: the report's analyses compute, the views print).
#   scripts/check-deps.sh              check, exit 1 with one line per violation
#   scripts/check-deps.sh --write-doc  rewrite the table in docs/ARCHITECTURE.md
# Tests, benches and fuzz targets are not modules: they may include what they test.
set -uo pipefail
# CHECK_DEPS_ROOT: another tree to check (the tests give it a small one with violations).
cd "${CHECK_DEPS_ROOT:-$(dirname "$0")/..}" || exit 2
DATA=mk/deps.mk
DOC=docs/ARCHITECTURE.md

# DATA read once: var[NAME] = the words after "NAME :=" (no process per name or per include
# below: this runs in every make check, and in tests/e2e/check_deps.c on four trees).
declare -A var
while IFS= read -r l; do
	[[ $l =~ ^([A-Za-z0-9_]+)[[:space:]]*:=[[:space:]]*(.*)$ ]] &&
		var[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
done <"$DATA"

read -r -a modules <<<"${var[MODULES]-}"
declare -A dir uses rank never moddir
for i in "${!modules[@]}"; do
	m=${modules[$i]}
	dir[$m]=${var[DIR_$m]-}
	uses[$m]=${var[USES_$m]-}
	never[$m]=${var[NEVER_$m]-}
	rank[$m]=$i
	[ -n "${dir[$m]}" ] && [ -z "${moddir[${dir[$m]}]+x}" ] && moddir[${dir[$m]}]=$m
done
read -r -a no_output <<<"${var[NO_OUTPUT]-}"

# The module a header path belongs to, into $mod: the first one whose directory is the
# header's directory ("" when none).
module_of() {
	local d=${1%/*}
	[ "$d" = "$1" ] && d=.
	mod=
	[ -n "$d" ] && mod=${moddir[$d]-}
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

# The order: every module before what it uses; none uses what it may never.
for m in "${modules[@]}"; do
	[ -d "${dir[$m]}" ] || say "$DATA: $m: no directory ${dir[$m]}"
	for u in ${uses[$m]}; do
		case " ${never[$m]} " in
		*" $u "*) say "$DATA: USES_$m names $u, which NEVER_$m forbids" ;;
		esac
		[ -n "${rank[$u]+x}" ] || { say "$DATA: $m uses unknown module $u"; continue; }
		[ "${rank[$u]}" -gt "${rank[$m]}" ] ||
			say "$DATA: $m uses $u but MODULES lists $u first (a cycle, or the order is wrong)"
	done
done

# Every include of every module file.
for m in "${modules[@]}"; do
	files=()
	for f in "${dir[$m]}"/*.[ch]; do
		[ -e "$f" ] && files+=("$f")
	done
	[ "${#files[@]}" -gt 0 ] || continue
	while IFS=: read -r f line inc; do
		module_of "$inc"; t=$mod
		if [ -z "$t" ]; then
			say "$f:$line: includes \"$inc\", which is in no module"
		elif [ "$t" != "$m" ]; then
			case " ${never[$m]} " in
			*" $t "*) say "$f:$line: $m may never include \"$inc\" (NEVER_$m: $t)"; continue ;;
			esac
			case " ${uses[$m]} " in
			*" $t "*) ;;
			*) say "$f:$line: $m may not include \"$inc\" ($t is not in USES_$m)"; continue ;;
			esac
			case "$inc" in
			*_int.h) say "$f:$line: \"$inc\" is internal to $t" ;;
			esac
		fi
	done < <(awk '/^[ \t]*#[ \t]*include[ \t]*"/ {
			s = $0; sub(/^[^"]*"/, "", s); sub(/".*/, "", s); print FILENAME ":" FNR ":" s }' \
		"${files[@]}")
done

# Every call between modules, from the built objects ($BUILD/obj/<dir>/<file>.o, as make
# builds them; `make check-deps` builds first): each symbol an object leaves undefined
# (nm -u) that another module's object defines (nm --defined-only) must belong to a module
# in USES of the caller's. Symbols no module defines (libc, libelf, generated code) are not
# ours to check. This catches what the include check cannot: a prototype written by hand,
# and a call from a file whose header the include check allowed for its types only.
BUILD=${BUILD:-build}
allobj=()
calls_input() {	# O obj module / S module uses... / D obj sym / U obj sym, for the awk below
	local m f o
	for m in "${modules[@]}"; do
		echo "S $m ${uses[$m]}"
		for f in "${dir[$m]}"/*.c; do
			o="$BUILD/obj/${f%.c}.o"
			[ -e "$o" ] && echo "O $o $m"
		done
	done
	[ "${#allobj[@]}" -gt 0 ] || return 0
	# A C library function a module defines again stays the C library's to call (symbols'
	# realpath, which answers libdw's question about /proc/self/fd/-1): not that module's.
	local libc
	libc=$(${CC:-cc} -print-file-name=libc.so.6 2>/dev/null)
	[ -f "$libc" ] || libc=$(ldconfig -p 2>/dev/null | awk '/libc\.so\.6 .*x86-64/ { print $NF; exit }')
	[ -f "$libc" ] && nm -D --defined-only "$libc" 2>/dev/null |
		awk '{ sub(/@.*/, "", $NF); print "L", $NF }'
	nm -A -g --defined-only "${allobj[@]}" 2>/dev/null |
		awk '{ split($1, a, ":") } NF == 3 && $2 ~ /^[A-Z]$/ { print "D", a[1], $3 }'
	nm -A -u "${allobj[@]}" 2>/dev/null | awk '{ split($1, a, ":"); print "U", a[1], $NF }'
}
for m in "${modules[@]}"; do
	for f in "${dir[$m]}"/*.c; do
		[ -e "$BUILD/obj/${f%.c}.o" ] && allobj+=("$BUILD/obj/${f%.c}.o")
	done
done
nobj=${#allobj[@]}
if [ "$nobj" -eq 0 ]; then
	echo "check-deps: calls not checked: no objects under $BUILD/obj (build first)" >&2
fi
while IFS= read -r v; do say "$v"; done < <(calls_input | awk '
	$1 == "S" { for (i = 3; i <= NF; i++) uses[$2 " " $i] = 1; next }
	$1 == "O" { mod[$2] = $3; next }
	$1 == "L" { libc[$2] = 1; next }
	$1 == "D" { if (!($3 in def) && !($3 in libc)) def[$3] = $2; next }
	$1 == "U" { u[++n] = $2; us[n] = $3 }
	END {
		for (i = 1; i <= n; i++) {
			o = u[i]; s = us[i]
			if (!(s in def)) continue		# not ours: libc, libelf, ...
			m = mod[o]; t = mod[def[s]]
			if (m == t || ((m " " t) in uses)) continue
			printf "%s: %s calls %s (defined by %s, in %s), but %s is not in USES_%s\n",
			       o, m, s, t, def[s], t, m
		}
	}')

# The modules that never write output: no call of a writer from their objects.
WRITERS='^(_IO_putc|putc|putchar|fputc|fputs|fwrite|fprintf|printf|vfprintf|vprintf|dprintf|vdprintf|puts|putc_unlocked|fputc_unlocked|fputs_unlocked|fwrite_unlocked|__fprintf_chk|__printf_chk|__vfprintf_chk|__vprintf_chk|__dprintf_chk|fopen|fopen64|fdopen|freopen|freopen64|open_memstream|fmemopen|write|pwrite|pwrite64|writev|creat|creat64|sio_create_new|sio_out_open|sio_out_open_path|sio_out_commit|sio_fput_json_str|sio_fputs_message|sio_fputs_text|sio_mkdirs_beneath)$'
for m in "${no_output[@]}"; do
	[ -n "${rank[$m]+x}" ] || { say "$DATA: NO_OUTPUT names unknown module $m"; continue; }
	objs=()
	for f in "${dir[$m]}"/*.c; do
		o="$BUILD/obj/${f%.c}.o"
		[ -e "$o" ] && objs+=("$o")
	done
	[ "${#objs[@]}" -gt 0 ] || continue
	while read -r o s; do
		say "$o: $m writes output (calls $s), which NO_OUTPUT forbids"
	done < <(nm -A -u "${objs[@]}" 2>/dev/null |
		awk '{ o = $1; sub(/:.*/, "", o); print o, $NF }' | grep -E " ${WRITERS#^}")
done

# Every subdirectory of recorder/ with C files is a module (the link order names them all).
for d in recorder/*/; do
	d=${d%/}
	ls "$d"/*.c >/dev/null 2>&1 || continue
	module_of "$d/x.h"
	[ -n "$mod" ] || say "$d: not a module in $DATA"
done

# The table in the architecture page is this data.
want=$(table)
got=$(awk -v b="$BEGIN" -v e="$END" '$0 == e { p = 0 } p; $0 == b { p = 1 }' "$DOC")
[ "$want" = "$got" ] || say "$DOC: the dependency table differs from $DATA (run $0 --write-doc)"

[ "$bad" -eq 0 ] && echo "check-deps: ${#modules[@]} modules, every include and every call" \
	"between the $nobj objects follows $DATA"
exit "$bad"
