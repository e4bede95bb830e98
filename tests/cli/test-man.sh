# test-man.sh: the man pages agree with --help: there is a page for sht
# and for every command `sht --help` lists (and for gen kernel, demo
# staircase); each page's synopsis is the help's usage lines, its options
# are exactly the help's, and every word of the help's text appears in the
# page in the same order.  The pages are those of the build (BUILD/man,
# made by scripts/man.sh from the same binary).
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

man_dir=$(dirname "$SHT")/man
if ! command -v man >/dev/null || [ ! -d "$man_dir" ]; then
	echo "1..0 # SKIP no man, or no man pages in $man_dir (SHT_MAN=OFF)"
	exit 0
fi

# A page as plain text, one paragraph per line (no wrapping, no
# hyphenation).
render()
{
	MANWIDTH=4000 LC_ALL=C man --nh --nj -l "$1" 2>/dev/null | col -b
}

# The options a help lists ("  -o, --output FILE  text" lines).
help_options()
{
	awk '/^  -/ { for (i = 1; i <= NF; i++) { w = $i; sub(/,$/, "", w)
		if (w ~ /^-/) print w; else break } }' | sort -u
}

# The options a rendered page lists: the words starting with "-" at the
# head of a line (help2man makes one .TP item per option line).
man_options()
{
	awk '/^ +-/ { for (i = 1; i <= NF; i++) { w = $i; sub(/,$/, "", w)
		if (w ~ /^-/) print w; else break } }' | sort -u
}

# Is every word of the help (after its usage lines, headings dropped) in
# the page, in order?  Prints the first word missing, or nothing.
words_in_order()
{
	"$PY" - "$1" "$2" <<'EOF'
import re, sys
help_text, page = open(sys.argv[1]).read(), open(sys.argv[2]).read()
lines = help_text.splitlines()
body, in_usage = [], True
for l in lines:
    if in_usage:
        if l.startswith("Usage:") or l.startswith("  or:"):
            continue
        in_usage = False
    if re.match(r"^\S.*:$", l):      # a heading ("Options:") becomes a section
        continue
    body.append(l)
words = " ".join(body).split()
pw = page.split()
j = 0
for w in words:
    while j < len(pw) and pw[j] != w:
        j += 1
    if j == len(pw):
        print(w)
        break
    j += 1
EOF
}

check_page()  # check_page PAGE WORDS...
{
	local page=$man_dir/$1.1 name=$1
	shift
	if [ ! -f "$page" ]; then
		ok 1 "$name.1 exists"
		return
	fi
	"$SHT" "$@" --help >"$SHT_TMP/$name.help"
	render "$page" >"$SHT_TMP/$name.txt"
	is "$(help_options <"$SHT_TMP/$name.help")" \
	   "$(man_options <"$SHT_TMP/$name.txt")" "$name: the page lists the help's options"
	is "$(words_in_order "$SHT_TMP/$name.help" "$SHT_TMP/$name.txt")" "" \
	   "$name: every word of the help is in the page, in order"
	want=$(sed -n 's/^Usage: //p; s/^  or:  //p' "$SHT_TMP/$name.help")
	got=$(awk '/^SYNOPSIS$/ { on = 1; next } on && /^[A-Z]/ { exit }
		on && NF { sub(/^ +/, ""); print }' "$SHT_TMP/$name.txt")
	is "$got" "$want" "$name: the synopsis is the usage"
	case $(sed -n '/^NAME$/{n;p;q}' "$SHT_TMP/$name.txt") in
	*"$name - "?*) ok 0 "$name: NAME line" ;;
	*) ok 1 "$name: NAME line" ;;
	esac
}

commands=$("$SHT" --help | awk '/^Commands:/ { on = 1; next }
	on && /^$/ { exit } on && /^  [a-z]/ { print $1 }' | grep -vx help)
[ -n "$commands" ]
ok $? "sht --help lists the commands"
check_page sht
for c in $commands; do
	check_page "sht-$c" "$c"
done
check_page sht-gen-kernel gen kernel
check_page sht-demo-staircase demo staircase
render "$man_dir/sht.1" >"$SHT_TMP/sht.txt"
missing=
for c in $commands; do
	grep -q "sht-$c(1)" "$SHT_TMP/sht.txt" || missing="$missing $c"
done
is "$missing" "" "sht(1) SEE ALSO names every command's page"
for s in TIMES "JSON OUTPUT" ENVIRONMENT "EXIT STATUS" EXAMPLES; do
	grep -qx "$s" "$SHT_TMP/sht.txt"
	ok $? "sht(1) has a $s section"
done
# The time forms sht(1) lists are the ones the tool takes.
f=$SHT_TMP/m.sht
expect_rc 0 "a history for the examples" "$SHT" gen staircase --attributes 3 \
	-o "$f"
for t in +1.5us +120ns "+0.000001 s" start end 0; do
	expect_rc 0 "the TIMES form '$t' works" "$SHT" query "$f" --at "$t" --quark 0
done

done_testing
