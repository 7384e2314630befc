# src/cmd/mtx.bash - bash completion for mtx, installed as
# $(datadir)/bash-completion/completions/mtx. Everything it offers comes
# from mtx itself (its --help texts, report --list, collect
# --list-functions), so it cannot fall behind the program.

# the commands, from mtx --help
_mtx_commands() {
	"$1" --help 2> /dev/null | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'
}

# the long options of a command, from its --help
_mtx_options() {
	"$1" "$2" --help 2> /dev/null | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u
}

# the source names of collect --events, from its --help
_mtx_sources() {
	"$1" collect --help 2> /dev/null |
		awk '/--events/ { on = 1; next } on && /^ +[a-z]+  / { print $1 } on && /^  -/ { exit }'
}

_mtx() {
	local mtx=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local cmd=${COMP_WORDS[1]:-} i program= in_program=
	COMPREPLY=()
	if ((COMP_CWORD == 1)); then
		mapfile -t COMPREPLY < <(compgen -W "$(_mtx_commands "$mtx") --help --version help" -- "$cur")
		return
	fi
	# the program after -- (for the functions it defines, wherever the
	# cursor is), and whether the cursor is among its arguments
	for ((i = 2; i + 1 < ${#COMP_WORDS[@]}; i++)); do
		if [ "${COMP_WORDS[i]}" = -- ] && ((i + 1 != COMP_CWORD)); then
			program=${COMP_WORDS[i + 1]}
			((i < COMP_CWORD)) && in_program=1
			break
		fi
	done
	case $prev in
	-o | --output | --capture | --control | --rates-from)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return
		;;
	-f | --format)
		case $cmd in
		export) mapfile -t COMPREPLY < <(compgen -W "chrome perfetto folded csv jsonl" -- "$cur") ;;
		diagnose) mapfile -t COMPREPLY < <(compgen -W "text json" -- "$cur") ;;
		*) mapfile -t COMPREPLY < <(compgen -W "text csv json" -- "$cur") ;;
		esac
		return
		;;
	-e | --events)
		local sources
		sources=$(_mtx_sources "$mtx")
		# a comma-separated list: complete its last name
		mapfile -t COMPREPLY < <(compgen -P "${cur%"${cur##*,}"}" -W "$sources all" -- "${cur##*,}")
		return
		;;
	--functions)
		[ -n "$program" ] && mapfile -t COMPREPLY < <("$mtx" collect --list-functions "^${cur#^}" -- "$program" \
			2> /dev/null | awk 'NF == 2 && $2 ~ /^\// { print "^" $1 "$" }')
		return
		;;
	--stacks)
		mapfile -t COMPREPLY < <(compgen -W "samples calls" -- "$cur")
		return
		;;
	--table)
		local db
		for ((i = 2; i < COMP_CWORD; i++)); do
			[[ ${COMP_WORDS[i]} == *.db ]] && db=${COMP_WORDS[i]}
		done
		[ -n "${db:-}" ] && mapfile -t COMPREPLY < <(compgen -W "$(sqlite3 "$db" \
			"SELECT name FROM sqlite_master WHERE type IN ('table', 'view')" 2> /dev/null)" -- "$cur")
		return
		;;
	esac
	if [ -n "$in_program" ]; then # the traced program's own arguments
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return
	fi
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_mtx_options "$mtx" "$cmd")" -- "$cur")
		return
	fi
	case $cmd in
	report)
		# a report's name, or a run database
		mapfile -t COMPREPLY < <(compgen -W "$("$mtx" report --list 2> /dev/null | awk '{ print $1 }')" -- "$cur")
		;;
	help)
		mapfile -t COMPREPLY < <(compgen -W "$(_mtx_commands "$mtx")" -- "$cur")
		return
		;;
	collect)
		mapfile -t COMPREPLY < <(compgen -c -- "$cur")
		return
		;;
	esac
	mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -X '!*.db' -- "$cur"; compgen -d -- "$cur")
}
complete -F _mtx mtx
