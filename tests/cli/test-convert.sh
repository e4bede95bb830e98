# test-convert.sh: `sht convert TRACE -o FILE` copies a CTF trace into VSTF
# (docs/VSTF.md): the summary (human and --json), the file's magic and
# trailer, replacing an older FILE, --index-every, and the errors (no
# partial output left behind).  Skips only when $SHT_SHARED/traces is
# absent.  (tests/unit/test-vstf.c checks the content event by event.)
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

expect_rc 0 "convert --help" "$SHT" convert --help
printf '%s\n' "$out" | grep -q '^Usage: sht convert TRACE -o FILE'
ok $? "--help: usage line"
run "$SHT" --help
printf '%s\n' "$out" | grep -q '^  convert '
ok $? "sht --help lists convert"
expect_rc 0 "sht help convert" "$SHT" help convert

traces=${SHT_SHARED:-}/traces
if [ -z "${SHT_SHARED:-}" ] || [ ! -d "$traces" ]; then
	diag "no real traces: ${traces} is absent (set SHT_SHARED)"
	done_testing
fi
trace=$traces/bug446190
f=$SHT_TMP/bug.vstf
rm -f -- "$f" "$SHT_TMP"/*.tmp.*

run "$SHT" convert "$trace" -o "$f" --json
if [ "$rc" -eq 1 ] && printf '%s' "$err" | grep -q 'without libbabeltrace2'; then
	diag "libsht built without libbabeltrace2: CTF conversion skipped"
	[ ! -e "$f" ] && [ -z "$(ls "$SHT_TMP" | grep -F '.tmp.')" ]
	ok $? "without libbabeltrace2: exit 1, no output left"
	done_testing
fi
is "$rc" 0 "convert bug446190 succeeds"
is "$(json 'd["events"]')" 31556 "summary: events = 31556"
is "$(json 'd["output"]')" "$f" "summary: output"
is "$(json 'd["fields"] > d["events"] and d["event_names"] > 10 and d["field_names"] > 10 and d["seconds"] >= 0')" 1 \
	"summary: fields, names, seconds"
is "$(stat -c %s "$f")" "$(json 'd["bytes"]')" "summary: bytes is the file's size"
is "$(head -c 4 "$f")" "VSTF" "file starts with the magic VSTF"
is "$(tail -c 4 "$f")" "FTSV" "file ends with the trailer's end magic"
is "$(od -An -tu4 -j4 -N4 "$f" | tr -d ' ')" 2 "version 2"
is "$(tail -c 40 "$f" | od -An -tu8 -N8 | tr -d ' ')" 31556 \
	"trailer: event count"
size1=$(stat -c %s "$f")

run "$SHT" convert "$trace" -o "$f"
is "$rc" 0 "human summary: exit 0"
printf '%s\n' "$out" | grep -q "^converted $trace to $f\$"
ok $? "human summary: first line"
is "$(printf '%s\n' "$out" | awk '$1 == "events" { print $2 }')" 31556 \
	"human summary: events"
is "$(printf '%s\n' "$out" | awk '$1 == "bytes" { print $2 }')" "$size1" \
	"human summary: bytes"
printf '%s\n' "$out" | grep -q '^seconds  *[0-9.]*$'
ok $? "human summary: seconds"
is "$(stat -c %s "$f")" "$size1" "converting again gives the same size"

run "$SHT" convert "$trace" -o "$SHT_TMP/i100.vstf" --index-every 100 --json
is "$rc" 0 "--index-every 100"
# 316 entries of 28 bytes against 8 entries: a larger file.
is "$(( $(stat -c %s "$SHT_TMP/i100.vstf") - size1 ))" $(( (316 - 8) * 28 )) \
	"--index-every 100: 308 more index entries of 28 bytes"

# Errors.
expect_rc 2 "no TRACE: exit 2" "$SHT" convert -o "$f"
expect_rc 2 "no -o: exit 2" "$SHT" convert "$trace"
expect_rc 2 "two TRACEs: exit 2" "$SHT" convert "$trace" "$trace" -o "$f"
expect_rc 2 "unknown option: exit 2" "$SHT" convert "$trace" -o "$f" --bogus
expect_rc 2 "--index-every 0: exit 2" "$SHT" convert "$trace" -o "$f" \
	--index-every 0
expect_rc 2 "--index-every junk: exit 2" "$SHT" convert "$trace" -o "$f" \
	--index-every 1x
expect_rc 1 "missing trace: exit 1" "$SHT" convert "$SHT_TMP/no-such-trace" \
	-o "$SHT_TMP/x.vstf"
printf '%s\n' "$err" | grep -q "^sht: cannot open the trace $SHT_TMP/no-such-trace: "
ok $? "missing trace: the message names it"
expect_rc 1 "not a trace: exit 1" "$SHT" convert "$SHT_TMP" -o "$SHT_TMP/x.vstf"
expect_rc 1 "unwritable output: exit 1" "$SHT" convert "$trace" \
	-o "$SHT_TMP/no-such-dir/x.vstf"
printf '%s\n' "$err" | grep -q "^sht: cannot convert $trace to $SHT_TMP/no-such-dir/x.vstf: "
ok $? "unwritable output: the message names both"
[ ! -e "$SHT_TMP/x.vstf" ] && [ -z "$(ls "$SHT_TMP" | grep -F '.tmp.')" ]
ok $? "failures leave no output and no temporary file"
is "$(stat -c %s "$f")" "$size1" "the earlier FILE is untouched by failures"

done_testing
