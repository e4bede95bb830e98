# test-usage.sh: the command line itself: help and version, and usage
# errors (exit status 2, a "sht: " message, nothing written).
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

f=$SHT_TMP/u.sht

expect_rc 0 "sht --help" "$SHT" --help
case $out in *"Usage: sht COMMAND"*) r=0 ;; *) r=1 ;; esac
ok $r "sht --help prints the usage"
expect_rc 0 "sht --version" "$SHT" --version
case $out in "sht "[0-9]*.[0-9]*.[0-9]*) r=0 ;; *) r=1 ;; esac
ok $r "sht --version prints 'sht X.Y.Z ...'"

for cmd in gen info query history tree check demo; do
	expect_rc 0 "sht $cmd --help" "$SHT" $cmd --help
	case $out in "Usage: sht $cmd"*) r=0 ;; *) r=1 ;; esac
	ok $r "sht $cmd --help prints its usage"
done
expect_rc 0 "sht gen staircase --help" "$SHT" gen staircase --help
expect_rc 0 "sht help query" "$SHT" help query
case $out in "Usage: sht query"*) r=0 ;; *) r=1 ;; esac
ok $r "sht help query prints the query usage"

# A valid file for the commands that need one.
expect_rc 0 "gen a small file" "$SHT" gen staircase --attributes 10 \
	--block-size 4k --no-sync -o "$f"

usage()
{
	local desc=$1
	shift
	expect_rc 2 "usage error: $desc" "$@"
	case $err in "sht: "*) ;; *) diag "stderr not 'sht: ...': $err" ;; esac
}

usage "no command" "$SHT"
usage "unknown command" "$SHT" frobnicate
usage "unknown global option" "$SHT" --frobnicate
usage "sht help of an unknown command" "$SHT" help frobnicate
usage "gen without workload" "$SHT" gen
usage "gen unknown workload" "$SHT" gen zigzag -o "$SHT_TMP/x.sht"
usage "gen without --attributes" "$SHT" gen staircase -o "$SHT_TMP/x.sht"
usage "gen without -o" "$SHT" gen staircase --attributes 10
usage "gen --dump with -o" "$SHT" gen staircase --attributes 10 --dump \
	-o "$SHT_TMP/x.sht"
usage "churn takes no --attributes" "$SHT" gen churn --attributes 10 \
	-o "$SHT_TMP/x.sht"
for bad in abc 10x -5 0 '' ' 5' 5.0 0x10 99999999999999999999999 4294967297; do
	usage "--attributes '$bad'" "$SHT" gen staircase --attributes "$bad" \
		-o "$SHT_TMP/x.sht"
done
usage "--attributes=junk" "$SHT" gen staircase --attributes=1y \
	-o "$SHT_TMP/x.sht"
usage "--attributes without value" "$SHT" gen staircase -o "$SHT_TMP/x.sht" \
	--attributes
usage "--intervals 0" "$SHT" gen staircase --attributes 10 --intervals 0 \
	-o "$SHT_TMP/x.sht"
usage "--step -1" "$SHT" gen staircase --attributes 10 --step -1 \
	-o "$SHT_TMP/x.sht"
usage "staircase beyond the time range" "$SHT" gen staircase \
	--attributes 1000000 --step 9223372036854775807 -o "$SHT_TMP/x.sht"
usage "--threads 0" "$SHT" gen churn --threads 0 -o "$SHT_TMP/x.sht"
for bad in 3k 512 1000 64q 32m k -4k 1M1; do
	usage "--block-size '$bad'" "$SHT" gen staircase --attributes 10 \
		--block-size "$bad" -o "$SHT_TMP/x.sht"
done
usage "--max-children 1" "$SHT" gen staircase --attributes 10 \
	--max-children 1 -o "$SHT_TMP/x.sht"
usage "--variant foo" "$SHT" gen staircase --attributes 10 --variant foo \
	-o "$SHT_TMP/x.sht"
usage "flag with a value" "$SHT" gen staircase --attributes 10 --json=1 \
	-o "$SHT_TMP/x.sht"
usage "extra argument to gen" "$SHT" gen staircase --attributes 10 extra \
	-o "$SHT_TMP/x.sht"
usage "--backend foo" "$SHT" gen staircase --attributes 10 --backend foo \
	-o "$SHT_TMP/x.sht"
usage "--backend without value" "$SHT" gen churn --threads 10 -o \
	"$SHT_TMP/x.sht" --backend
usage "--backend memory with -o" "$SHT" gen staircase --attributes 10 \
	--backend memory -o "$SHT_TMP/x.sht"
usage "--backend null with -o" "$SHT" gen churn --threads 10 \
	--backend null -o "$SHT_TMP/x.sht"
usage "--dump with --backend" "$SHT" gen staircase --attributes 10 --dump \
	--backend null
usage "--backend tree without -o" "$SHT" gen staircase --attributes 10 \
	--backend tree
[ ! -e "$SHT_TMP/x.sht" ]
ok $? "no usage error wrote a file"

usage "info without FILE" "$SHT" info
usage "info with two files" "$SHT" info "$f" "$f"
usage "info unknown option" "$SHT" info "$f" --bogus
usage "query without --at" "$SHT" query "$f"
usage "query without FILE" "$SHT" query --at 5
usage "query --at 1.5" "$SHT" query "$f" --at 1.5
usage "query --at overflow" "$SHT" query "$f" --at 9223372036854775808
usage "query --quark -1" "$SHT" query "$f" --at 5 --quark -1
usage "query --quark 4294967295" "$SHT" query "$f" --at 5 --quark 4294967295
usage "history without --quark" "$SHT" history "$f"
usage "history --from after --to" "$SHT" history "$f" --quark 1 --from 10 \
	--to 5
usage "history --resolution -1" "$SHT" history "$f" --quark 1 \
	--resolution -1
usage "history with --quark and --attribute" "$SHT" history "$f" \
	--quark 1 --attribute 1
usage "history with two --quark" "$SHT" history "$f" --quark 1 --quark 2
usage "history with two --attribute" "$SHT" history "$f" --attribute 1 \
	--attribute 2
usage "history --attribute without value" "$SHT" history "$f" --attribute
usage "query --attribute without value" "$SHT" query "$f" --at 5 \
	--attribute
usage "tree without FILE" "$SHT" tree
usage "tree with two files" "$SHT" tree "$f" "$f"
usage "tree unknown option" "$SHT" tree "$f" --bogus
for bad in -1 abc 1.5 '' 4294967296; do
	usage "tree --depth '$bad'" "$SHT" tree "$f" --depth "$bad"
done
usage "tree --pattern ''" "$SHT" tree "$f" --pattern ''
usage "tree --pattern without value" "$SHT" tree "$f" --pattern
usage "check without FILE" "$SHT" check
usage "check with an option it lacks" "$SHT" check "$f" --json
usage "demo staircase --attributes 0" "$SHT" demo staircase --attributes 0
usage "demo --attributes (kernel demo)" "$SHT" demo --attributes 5
usage "demo with an argument" "$SHT" demo extra
usage "gen kernel without -o" "$SHT" gen kernel --events 10
usage "gen kernel --events and --size" "$SHT" gen kernel -o "$SHT_TMP/k" --events 10 --size 1m
usage "gen kernel --cpus 0" "$SHT" gen kernel -o "$SHT_TMP/k" --cpus 0
usage "gen kernel --format xml" "$SHT" gen kernel -o "$SHT_TMP/k" --format xml
usage "gen kernel --size 3q" "$SHT" gen kernel -o "$SHT_TMP/k" --size 3q

# Accepted spellings.
expect_rc 0 "--opt=value, -oFILE and -- work" "$SHT" gen staircase \
	--attributes=5 --block-size=4K --intervals 2 --no-sync -o"$SHT_TMP/y.sht"
expect_rc 0 "query --at=T -- FILE" "$SHT" query --at=0 --quark=0 -- "$f"
run "$SHT" query "$f" --at -5 --quark 1
[ "$rc" -eq 1 ] || [ "$rc" -eq 0 ]
ok $? "query --at -5 is not a usage error"

# The option parser (getopt_long): options anywhere, in order, whatever
# POSIXLY_CORRECT says; abbreviations; its messages.
run "$SHT" info --json "$f"
before=$out
expect_rc 0 "info FILE --json" "$SHT" info "$f" --json
is "$out" "$before" "an option after the file acts as before it"
POSIXLY_CORRECT=1 expect_rc 0 "options after FILE with POSIXLY_CORRECT" \
	"$SHT" info "$f" --json
is "$out" "$before" "POSIXLY_CORRECT does not stop at the file"
expect_rc 0 "an unambiguous abbreviation (--attr)" "$SHT" query "$f" \
	--at 0 --attr 3
is "$out" "$("$SHT" query "$f" --at 0 --attribute 3)" \
	"--attr is --attribute"
expect_rc 0 "-h prints the usage" "$SHT" tree -h
case $out in "Usage: sht tree"*) r=0 ;; *) r=1 ;; esac
ok $r "-h is --help"
usage_msg()
{
	local want=$1 desc=$2
	shift 2
	usage "$desc" "$@"
	case $err in
	"sht: $want"$'\n'"Try 'sht "*" --help'.") ok 0 "message: $want" ;;
	*) ok 1 "message: $want"; diag "stderr: $err" ;;
	esac
}
usage_msg "unknown option '--bogus'" "unknown long option" \
	"$SHT" info "$f" --bogus=1
usage_msg "unknown option '-x'" "unknown short option" "$SHT" info "$f" -x
usage_msg "ambiguous option '--a'" "ambiguous abbreviation" \
	"$SHT" query "$f" --at 0 --a 3
usage_msg "option '--json' takes no value" "flag given a value" \
	"$SHT" info "$f" --json=yes
usage_msg "option '--help' takes no value" "--help given a value" \
	"$SHT" info --help=yes
usage_msg "option '--at' needs a value" "long option without value" \
	"$SHT" query "$f" --at
usage_msg "option '-o' needs a value" "short option without value" \
	"$SHT" gen staircase --attributes 3 -o
usage_msg "unexpected argument '--json'" "-- ends the options" \
	"$SHT" info "$f" -- --json

# Errors that are not usage errors: exit 1.
expect_rc 1 "query a missing file" "$SHT" query "$SHT_TMP/none.sht" --at 0
case $err in "sht: cannot open $SHT_TMP/none.sht: "*) r=0 ;; *) r=1 ;; esac
ok $r "missing file: 'sht: cannot open FILE: ...'"
expect_rc 1 "gen into a missing directory" "$SHT" gen staircase \
	--attributes 3 -o "$SHT_TMP/no/such/dir.sht"
expect_rc 1 "gen with children that do not fit a block" "$SHT" gen \
	staircase --attributes 3 --block-size 1k --max-children 100000 \
	-o "$SHT_TMP/z.sht"

done_testing
