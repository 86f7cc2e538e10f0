# bench/lib/best.sh - timing helpers the bench scripts share (sourced).

# seconds wall and cpu (user+sys) of one run: "WALL CPU"
measure() {
	local TIMEFORMAT='%R %U %S' out
	out=$({ time "$@" >/dev/null 2>&1; } 2>&1)
	awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' <<<"$out"
}

best() {	# best() N CMD...: minimum wall and cpu over N runs
	local n=$1; shift
	local bw=1e9 bc=1e9 w c
	for _ in $(seq "$n"); do
		read -r w c < <(measure "$@")
		bw=$(awk -v x="$w" -v y="$bw" 'BEGIN { print (x < y) ? x : y }')
		bc=$(awk -v x="$c" -v y="$bc" 'BEGIN { print (x < y) ? x : y }')
	done
	echo "$bw $bc"
}
