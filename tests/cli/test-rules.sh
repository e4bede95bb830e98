# test-rules.sh: `sht build TRACE --analysis FILE.xml`: the call-stack
# provider of examples/rules over the context-switches UST trace (the
# provider id and a content-hashed version in the file, stack depths),
# reuse while the rules file is unchanged and a rebuild once it changes,
# the same provider in the native syntax,
# errors naming the file and line, a partial history's queries replaying
# the rules file given with --analysis (and refusing another or a changed
# one), and
# without XML support the message that says so.
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

traces=${SHT_SHARED:-}/traces
if [ -z "${SHT_SHARED:-}" ] || [ ! -d "$traces" ]; then
	echo "1..0 # SKIP no real traces: ${traces} is absent (set SHT_SHARED)"
	exit 0
fi
trace=$traces/context-switches/context-switches-ust
xml=$SHT_SRCDIR/examples/rules/ust-callstack.xml
f=$SHT_TMP/cs.sht
rm -f -- "$f"

run "$SHT" build "$trace" --analysis "$SHT_TMP/none.xml" -o "$f" --no-progress
is "$rc" 1 "a missing rules file fails"
ok "$(grep -qF "$SHT_TMP/none.xml" <<<"$err"; echo $?)" "the message names the file"
if grep -q "XML support is not built in" <<<"$err"; then
	run "$SHT" build "$trace" --analysis "$xml" -o "$f" --no-progress
	is "$rc" 1 "no XML support: refused"
	ok "$(grep -q "XML support is not built in" <<<"$err"; echo $?)" "says XML support is not built in"
	done_testing
fi

run "$SHT" build "$trace" --analysis "$xml" -o "$f" --json --no-progress
is "$rc" 0 "build with the call-stack provider"
is "$(json 'd["events"]')" 3934 "3934 events"
is "$(json 'd["events_skipped"]')" 0 "none skipped"
run "$SHT" info "$f" --json
is "$(json 'd["provider"]')" org.sht.examples.ust.callstack "provider id from the XML"
is "$(json 'd["provider_version"] >> 24')" 1 "declared version in the top byte"
expect_rc 0 "check passes" "$SHT" check "$f"
run "$SHT" history "$f" --attribute Threads/595/CallStack --json
is "$rc" 0 "history of a call stack"
is "$(json 'max(i["value"] or 0 for i in d)')" 8 "thread 595 reaches depth 8"
run "$SHT" query "$f" --attribute Threads/589/Exec_name --at 1450193745774189602 --json
is "$(json 'd[0]["value"]')" lemon_server "Exec_name from the procname context field"

run "$SHT" build "$trace" --analysis "$xml" -o "$f" --no-progress
ok "$(grep -q '^reusing' <<<"$out"; echo $?)" "unchanged rules file: reused"
cp -- "$xml" "$SHT_TMP/cs.xml"
echo "<!-- edited -->" >>"$SHT_TMP/cs.xml"
run "$SHT" build "$trace" --analysis "$SHT_TMP/cs.xml" -o "$f" --no-progress
is "$rc" 0 "edited rules file: builds"
ok "$(grep -q '^reusing' <<<"$out"; [ $? -ne 0 ]; echo $?)" "edited rules file: rebuilt, not reused"

printf '<tmfxml>\n<stateProvider id="x" version="1">\n<eventHandler eventName="e">\n<stateChange><stateAttribute type="self"/><stateValue type="null"/></stateChange>\n</eventHandler></stateProvider></tmfxml>\n' >"$SHT_TMP/bad.xml"
run "$SHT" build "$trace" --analysis "$SHT_TMP/bad.xml" -o "$SHT_TMP/bad.sht" --no-progress
is "$rc" 1 "an unsupported construct fails"
is "$err" "sht: $SHT_TMP/bad.xml:4: <stateAttribute>: unsupported type 'self'" "the error names file, line and element"
ok "$([ ! -e "$SHT_TMP/bad.sht" ]; echo $?)" "and leaves no history"

run "$SHT" build "$trace" --analysis "$SHT_SRCDIR/examples/rules/ust-callstack.rules" -o "$SHT_TMP/n.sht" --json --no-progress
is "$rc" 0 "build with the native-syntax call stack"
is "$(json 'd["intervals"]')" "$(cd "$SHT_TMP" && "$SHT" info cs.sht --json | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["intervals"])')" \
	"as many intervals as from the XML"
printf 'provider x 1\non e\n  A = \nend\n' >"$SHT_TMP/bad.rules"
run "$SHT" build "$trace" --analysis "$SHT_TMP/bad.rules" -o "$SHT_TMP/bad.sht" --no-progress
is "$err" "sht: $SHT_TMP/bad.rules:3: expected a value" "a native-syntax error names file and line"

run "$SHT" build "$trace" --analysis foo -o "$SHT_TMP/x.sht" --no-progress
is "$rc" 2 "an unknown analysis name is a usage error"
ok "$(grep -q "FILE.xml" <<<"$err"; echo $?)" "that mentions rules files"

run "$SHT" build "$trace" --analysis "$xml" -o "$SHT_TMP/p.sht" --partial 500 --no-progress
is "$rc" 0 "a partial history from a rules file builds"
at=1450193697034689597
run "$SHT" query "$SHT_TMP/p.sht" --at $at --trace "$trace"
is "$rc" 1 "without its rules file its queries are refused"
ok "$(grep -q "give that file with --analysis FILE" <<<"$err"; echo $?)" "with a message that says what to give"
run "$SHT" query "$SHT_TMP/p.sht" --at $at --trace "$trace" --analysis "$xml"
is "$rc" 0 "with --analysis it replays the rules file"
pq=$out
run "$SHT" query "$f" --at $at
is "$pq" "$out" "the partial history's full query equals the full history's"
run "$SHT" history "$SHT_TMP/p.sht" --attribute Threads/595/CallStack --trace "$trace" --analysis "$xml"
is "$rc" 0 "history of a partial rules history"
ph=$out
run "$SHT" history "$f" --attribute Threads/595/CallStack
is "$ph" "$out" "its intervals equal the full history's"
ok "$([ -n "$ph" ]; echo $?)" "and there are some"
cp -- "$xml" "$SHT_TMP/edited.xml"
printf '<!-- edited -->\n' >>"$SHT_TMP/edited.xml"
run "$SHT" query "$SHT_TMP/p.sht" --at $at --trace "$trace" --analysis "$SHT_TMP/edited.xml"
is "$rc" 1 "a changed rules file is refused"
ok "$(grep -q "the file changed since" <<<"$err"; echo $?)" "with a message that says it changed"
run "$SHT" history "$SHT_TMP/p.sht" --attribute Threads/595/CallStack --trace "$trace" \
	--analysis "$SHT_SRCDIR/examples/rules/ust-callstack.rules"
is "$rc" 1 "another provider's rules file is refused"
ok "$(grep -q "org.sht.examples.ust.callstack.native" <<<"$err"; echo $?)" "with a message naming both providers"
run "$SHT" query "$SHT_TMP/p.sht" --at $at --trace "$trace" --analysis kernel
is "$rc" 1 "--analysis takes only a rules file"
done_testing
