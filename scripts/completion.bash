# bash completion for jitprof (installed as share/bash-completion/completions/jitprof).
# Commands and options come from jitprof's own --help texts at completion time, so this file
# never goes out of date with the commands.
_jitprof()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd="" i
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--) return 0 ;;	# the profiled command's own words: leave them to the default
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [[ -z $cmd ]]; then
		local cmds
		cmds=$("${COMP_WORDS[0]}" --help 2>/dev/null |
			sed -n '/^commands:/,/^$/s/^  \([a-z-]*\) .*/\1/p')
		COMPREPLY=($(compgen -W "$cmds --help --version" -- "$cur"))
		return 0
	fi
	case $prev in
	-o|--output|-i|--input|--flamegraph|--html|--pprof|--speedscope|--jfr|--jvm-log|--archive|--symfs|--buildid-dir|--jit-dir|--vmlinux|--kallsyms)
		COMPREPLY=($(compgen -f -- "$cur"))
		return 0 ;;
	-k|--clockid)
		COMPREPLY=($(compgen -W "mono raw boot realtime tai perf" -- "$cur"))
		return 0 ;;
	--call-graph)
		# record's and profile's are how stacks are recorded; report's how they are shown
		case $cmd in
		record|profile) COMPREPLY=($(compgen -W "fp dwarf dwarf,16384 dwarf,32768 dwarf,65528" -- "$cur")) ;;
		*) COMPREPLY=($(compgen -W "caller callee none" -- "$cur")) ;;
		esac
		return 0 ;;
	-e|--event)
		COMPREPLY=($(compgen -W "cycles cpu-clock task-clock instructions cache-misses page-faults context-switches wall offcpu alloc lock" -- "$cur"))
		return 0 ;;
	-p|--pid)
		COMPREPLY=($(compgen -W "$(ps -eo pid= 2>/dev/null)" -- "$cur"))
		return 0 ;;
	esac
	if [[ $cur == -* ]]; then
		local opts
		# Only the options the help defines (lines that start with one), not every
		# option its prose mentions (profile's help names inject's --elfs-for).
		opts=$("${COMP_WORDS[0]}" "$cmd" --help 2>/dev/null | grep -E '^ {1,8}-' |
			sed -E 's/^ +//; s/^(-[A-Za-z0-9]),? ?(--[A-Za-z][A-Za-z0-9-]*)?.*/\1 \2/;
				s/^(--[A-Za-z][A-Za-z0-9-]*).*/\1/')
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return 0
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
}
complete -F _jitprof jitprof
