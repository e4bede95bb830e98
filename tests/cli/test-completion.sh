# test-completion.sh: the bash completion (completion/sht.bash) completes
# the commands of `sht --help`, each command's options from its own help,
# option values, files, and the attribute paths of the history file on
# the command line, one level at a time.
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

comp=${SHT_SRCDIR:?}/completion/sht.bash
f=$SHT_TMP/c.sht
expect_rc 0 "a history" "$SHT" gen churn --threads 3 -o "$f"
mkdir -p "$SHT_TMP/dir"
: >"$SHT_TMP/dir/a.sht"
: >"$SHT_TMP/dir/b.txt"

# complete WORDS...: the completions of the last word (of word CWORD if
# set), sorted, on one line.
complete_words()
{
	(cd "$SHT_TMP" && bash -c '
		source "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=${CWORD:-$((${#COMP_WORDS[@]} - 1))}
		COMPREPLY=()
		_sht
		[ ${#COMPREPLY[@]} -eq 0 ] ||
			printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' _ "$comp" "$@")
}
SHTBIN=$SHT

want=$("$SHT" --help | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit }
	on && /^  [a-z]/ { print $1 }' | sort | tr '\n' ' ')
is "$(complete_words "$SHTBIN" "")" "$want" "the commands of sht --help"
is "$(complete_words "$SHTBIN" de)" "demo describe " "commands by prefix"
want=$("$SHT" history --help | grep -oE '^  (-[a-z], )?--[a-z-]+' |
	sed -E 's/^  //; s/, /\n/' | grep -- '^--' | sort | tr '\n' ' ')
is "$(complete_words "$SHTBIN" history "$f" --)" "$want" \
	"history: the long options of its --help"
is "$(complete_words "$SHTBIN" gen kernel --f)" "--format " \
	"gen kernel: its own options"
is "$(complete_words "$SHTBIN" gen "")" "churn kernel staircase " "gen: its workloads"
is "$(complete_words "$SHTBIN" query "$f" --time-format "")" "clock ns relative " \
	"--time-format values"
is "$(complete_words "$SHTBIN" query "$f" --at "")" "+ end start " "--at forms"
is "$(complete_words "$SHTBIN" query "$f" --attribute "")" "Threads " \
	"--attribute: the top level of the file"
is "$(complete_words "$SHTBIN" query "$f" --attribute Threads/)" \
	"Threads/0 Threads/1 Threads/2 " "--attribute: one level down"
is "$(complete_words "$SHTBIN" history "$f" --attribute Threads/1/S)" \
	"Threads/1/Status " "--attribute: by prefix"
is "$(CWORD=3 complete_words "$SHTBIN" tree --pattern Threads/ "$f")" \
	"Threads/0 Threads/1 Threads/2 " "the file may come after the cursor"
is "$(complete_words "$SHTBIN" query --attribute Threads/)" "" \
	"no file on the line: no paths"
is "$(complete_words "$SHTBIN" info dir/)" "dir/a.sht " "FILE: .sht files"
is "$(complete_words "$SHTBIN" help qu)" "query " "help COMMAND"

done_testing
