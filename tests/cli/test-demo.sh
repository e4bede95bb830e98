# test-demo.sh: `sht demo` builds (through the state system), inspects,
# queries (by quark, by path) and checks a staircase history, comparing
# every answer with the formula.
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

tmp=$SHT_TMP/demo-tmp
mkdir -p "$tmp"

run env TMPDIR="$tmp" "$SHT" demo --attributes 2000
is "$rc" 0 "demo --attributes 2000 succeeds"
is "$(printf '%s\n' "$out" | grep -c -- '-> ok$')" 5 \
	"demo: five answers, all ok"
printf '%s\n' "$out" | grep -q '^query by path: attribute "666" at t='
ok $? "demo: a query by attribute path"
printf '%s\n' "$out" | grep -q MISMATCH
ok $((!$?)) "demo: no MISMATCH"
printf '%s\n' "$out" | grep -qE '^staircase: 41999 intervals in '
ok $? "demo: build summary with A(I+1)-1 intervals"
printf '%s\n' "$out" | grep -qE '^intervals: +41999$'
ok $? "demo: info statistics"
printf '%s\n' "$out" | grep -qE ': ok \([0-9]+ nodes, 41999 intervals\)$'
ok $? "demo: check result"
is "$(ls -A "$tmp")" "" "demo: the temporary file is removed"

f=$SHT_TMP/kept.sht
expect_rc 0 "demo -o FILE" env TMPDIR="$tmp" "$SHT" demo --attributes 50 \
	-o "$f"
expect_rc 0 "demo -o FILE: the file is kept and checks" "$SHT" check "$f"
run "$SHT" info "$f" --json
is "$(json '(d["variant"], d["intervals"])')" "('esht', 1049)" \
	"demo -o FILE: an eSHT with A(I+1)-1 intervals"

expect_rc 0 "demo --attributes 1" env TMPDIR="$tmp" "$SHT" demo \
	--attributes 1

done_testing
