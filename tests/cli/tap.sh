# tap.sh: TAP helpers for the CLI tests, sourced by tests/cli/test-*.sh
# (not a test itself).
#
# Environment: SHT (the sht tool, required), SHT_TMP (scratch directory;
# a fresh temporary one if unset), PYTHON (default /usr/bin/python3).
#
#   ok STATUS DESC          pass if STATUS is 0
#   todo STATUS DESC WHY    a known failure: "not ok ... # TODO WHY" does
#                           not fail the test (TAP), "ok" says it is fixed
#   is GOT WANT DESC        pass if the strings are equal (shows both if not)
#   run CMD...              run CMD: stdout in $out, stderr in $err,
#                           exit status in $rc
#   expect_rc WANT DESC CMD...   run CMD, pass if its status is WANT
#   no_crash DESC           pass if the last run exited below 128 without
#                           a sanitizer report
#   json EXPR               evaluate the Python EXPR on the JSON document
#                           in $out (bound to d) and print the result
#   done_testing            print the plan, exit 0 if every test passed

: "${SHT:?SHT must be the path of the sht tool}"
if [ -z "${SHT_TMP:-}" ]; then
	SHT_TMP=$(mktemp -d)
fi
mkdir -p -- "$SHT_TMP"
PY=${PYTHON:-/usr/bin/python3}
tap_run=0
tap_failed=0

ok()
{
	tap_run=$((tap_run + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_run - $2"
	else
		echo "not ok $tap_run - $2"
		tap_failed=$((tap_failed + 1))
	fi
}

todo()
{
	tap_run=$((tap_run + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_run - $2 # TODO $3"
	else
		echo "not ok $tap_run - $2 # TODO $3"
	fi
}

diag()
{
	printf '# %s\n' "$*" >&2
}

is()
{
	if [ "$1" = "$2" ]; then
		ok 0 "$3"
	else
		ok 1 "$3"
		diag "got:  '$1'"
		diag "want: '$2'"
	fi
}

run()
{
	out=$("$@" 2>"$SHT_TMP/.stderr")
	rc=$?
	err=$(cat "$SHT_TMP/.stderr")
}

expect_rc()
{
	local want=$1 desc=$2
	shift 2
	run "$@"
	if [ "$rc" -eq "$want" ]; then
		ok 0 "$desc"
	else
		ok 1 "$desc"
		diag "command: $*"
		diag "exit status $rc, want $want; stderr: $err"
	fi
}

sanitizer_report()
{
	case $err in
	*Sanitizer* | *"runtime error:"*) return 0 ;;
	esac
	return 1
}

no_crash()
{
	if [ "$rc" -lt 128 ] && ! sanitizer_report; then
		ok 0 "$1"
	else
		ok 1 "$1"
		diag "exit status $rc; stderr: $err"
	fi
}

json()
{
	printf '%s' "$out" | "$PY" -c '
import json, sys
d = json.load(sys.stdin)
r = eval(sys.argv[1])
print(r if not isinstance(r, bool) else int(r))
' "$1"
}

done_testing()
{
	echo "1..$tap_run"
	[ "$tap_failed" -eq 0 ] || diag "$tap_failed of $tap_run tests failed"
	[ "$tap_failed" -eq 0 ]
	exit
}
