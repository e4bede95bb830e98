# bash completion for sht: the commands, each command's options (read
# from its own --help, so they are never out of date), option values, and
# the attribute paths of the history file on the command line
# (--attribute, --pattern), one level at a time.  Installed as
# share/bash-completion/completions/sht; to try it from a source tree:
#   source completion/sht.bash

# The commands of `sht --help` (the "Commands:" list).
_sht_commands()
{
	"$1" --help 2>/dev/null | awk '/^Commands:/ { on = 1; next }
		on && /^$/ { exit } on && /^  [a-z]/ { print $1 }'
}

# The options of a command's help ("  -o, --output FILE  ..." lines).
_sht_options()
{
	"$@" --help 2>/dev/null | awk '/^  -/ {
		for (i = 1; i <= NF; i++) {
			w = $i; sub(/,$/, "", w)
			if (w ~ /^-/) print w; else break
		} }'
}

# The history file of the command line: the first word after the command
# that names an existing regular file.
_sht_file()
{
	local i w
	for ((i = 2; i < ${#COMP_WORDS[@]}; i++)); do
		w=${COMP_WORDS[i]}
		[ "$i" -eq "$COMP_CWORD" ] && continue
		case ${COMP_WORDS[i - 1]} in
		--trace | --analysis | -o | --output) continue ;;
		esac
		w=${w/#\~/$HOME}
		if [[ $w != -* ]] && [ -f "$w" ]; then
			printf '%s\n' "$w"
			return
		fi
	done
}

# Attribute paths of FILE one level below what cur has typed: "Thr" ->
# Threads, "Threads/" -> Threads/1, Threads/2, ...
_sht_paths()
{
	local sht=$1 file=$2 cur=$3 dir pat
	[ -n "$file" ] || return
	if [[ $cur == */* ]]; then
		dir=${cur%/*}
		pat="$dir/*"
	else
		pat="*"
	fi
	"$sht" tree "$file" --pattern "$pat" --depth 0 2>/dev/null |
		sed -E 's/ \([0-9]+\)$//; s/^"(.*)"$/\1/'
}

_sht()
{
	local cur prev sht cmd words i
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	sht=${COMP_WORDS[0]}

	if [ "$COMP_CWORD" -eq 1 ]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--help --version" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(_sht_commands "$sht")" -- "$cur"))
		fi
		return
	fi
	cmd=${COMP_WORDS[1]}
	words=("$cmd")
	case $cmd in
	gen | demo)
		case ${COMP_WORDS[2]:-} in
		kernel | staircase | churn) words=("$cmd" "${COMP_WORDS[2]}") ;;
		esac
		if [ "$COMP_CWORD" -eq 2 ] && [[ $cur != -* ]]; then
			if [ "$cmd" = gen ]; then
				COMPREPLY=($(compgen -W "staircase churn kernel" -- "$cur"))
			else
				COMPREPLY=($(compgen -W "kernel staircase" -- "$cur"))
			fi
			return
		fi
		;;
	help)
		COMPREPLY=($(compgen -W "$(_sht_commands "$sht")" -- "$cur"))
		return
		;;
	esac

	case $prev in
	--attribute | --pattern)
		local IFS=$'\n'
		COMPREPLY=($(compgen -W "$(_sht_paths "$sht" "$(_sht_file)" "$cur")" -- "$cur"))
		compopt -o filenames 2>/dev/null
		return
		;;
	--analysis)
		COMPREPLY=($(compgen -W "kernel stats" -- "$cur")
			   $(compgen -f -X '!*.xml' -- "$cur")
			   $(compgen -f -X '!*.rules' -- "$cur")
			   $(compgen -d -- "$cur"))
		return
		;;
	--time-format)
		COMPREPLY=($(compgen -W "ns clock relative" -- "$cur"))
		return
		;;
	--format)
		COMPREPLY=($(compgen -W "ctf vstf" -- "$cur"))
		return
		;;
	--variant)
		COMPREPLY=($(compgen -W "esht sht" -- "$cur"))
		return
		;;
	--backend)
		COMPREPLY=($(compgen -W "tree memory null" -- "$cur"))
		return
		;;
	--at | --from | --to)
		COMPREPLY=($(compgen -W "start end +" -- "$cur"))
		return
		;;
	-o | --output | --trace)
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	--quark | --partial | --depth | --events | --size | --cpus | \
	--threads | --seed | --attributes | --intervals | --step | \
	--block-size | --max-children | --index-every | --resolution)
		return
		;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_sht_options "$sht" "${words[@]}")" -- "$cur"))
		return
	fi
	case $cmd in
	build | convert)
		COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.vstf' -- "$cur"))
		;;
	*)
		COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.sht' -- "$cur"))
		;;
	esac
	compopt -o filenames 2>/dev/null
}

complete -F _sht sht
