# test-sync.sh: `sht sync TRACE...` and `sht build TRACE... --sync`
# (docs/SYNC.md): synctraces give Trace Compass's 46 matches and
# transform, in text and JSON with all the digits; generated traces of
# two and three hosts (sht gen kernel --hosts) synchronize accurately and
# their histories start on the corrected clock; a second build reuses the
# stored synchronization; bad input (one trace, one host, no network
# events, missing traces, bad options) is reported.
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

TC_SLOPE=0.9999413783703139011056845831168394
TC_OFFSET=79796507913179.33347660124688298171

# JSON numbers as their text (all the digits).
jtext()
{
	printf '%s' "$out" | "$PY" -c '
import json, sys
d = json.load(sys.stdin, parse_float=str, parse_int=str)
r = eval(sys.argv[1])
print(r if not isinstance(r, bool) else int(r))
' "$1"
}

expect_rc 0 "sync --help" "$SHT" sync --help
printf '%s\n' "$out" | grep -q '^Usage: sht sync TRACE'
ok $? "--help: usage line"
run "$SHT" --help
printf '%s\n' "$out" | grep -q '^  sync '
ok $? "sht --help lists sync"
expect_rc 2 "sync without TRACE: usage error" "$SHT" sync
expect_rc 2 "sync --bogus: usage error" "$SHT" sync --bogus x
expect_rc 1 "sync of a missing trace fails" "$SHT" sync "$SHT_TMP/none" "$SHT_TMP/none2"
printf '%s' "$err" | grep -q 'none'
ok $? "the message names the trace"
expect_rc 2 "gen kernel --drift without --hosts: usage error" \
	"$SHT" gen kernel -o "$SHT_TMP/x" --drift 5
expect_rc 2 "gen kernel --hosts 1: usage error" \
	"$SHT" gen kernel -o "$SHT_TMP/x" --hosts 1
expect_rc 2 "gen kernel --latency 9:3: usage error" \
	"$SHT" gen kernel -o "$SHT_TMP/x" --hosts 2 --latency 9:3
expect_rc 2 "build of two traces without --sync: usage error" \
	"$SHT" build a b

# ---- generated hosts (VSTF: no babeltrace2 needed) --------------------------
h=$SHT_TMP/hosts
rm -rf -- "$h"
expect_rc 0 "gen kernel --hosts 3 (VSTF)" "$SHT" gen kernel -o "$h" --hosts 3 \
	--events 60000 --format vstf --json --drift 20000 --clock-offset 5000000
is "$(json 'd["hosts"] == 3 and d["packet_events"] > 400')" 1 "3 hosts, packets"
is "$(ls "$h" | tr '\n' ' ')" "host0.vstf host1.vstf host2.vstf " "one file per host"
expect_rc 0 "sync of the 3 hosts" "$SHT" sync --json "$h/host0.vstf" "$h/host1.vstf" "$h/host2.vstf"
is "$(json 'd["quality"]')" accurate "quality accurate"
is "$(json '[t["reference"] for t in d["traces"]] == [True, False, False]')" 1 \
	"host0 (first name) is the reference"
is "$(json 'len(d["pairs"]) == 2 and all(p["quality"] == "accurate" for p in d["pairs"])')" 1 \
	"two pairs (a chain), both accurate"
# host2 runs 2 * 20 ppm fast and 10 ms ahead: its slope is about 1 - 40e-6
is "$(json 'abs(d["traces"][2]["slope"] - 1 / 1.00004) < 1e-3')" 1 "host2's slope near 1/1.00004 (24 ms of trace)"
expect_rc 0 "the same traces in another order" "$SHT" sync --json "$h/host2.vstf" "$h/host0.vstf" "$h/host1.vstf"
is "$(json '[t["reference"] for t in d["traces"]] == [False, True, False]')" 1 \
	"the reference is still host0"

# ---- bad input -------------------------------------------------------------
run "$SHT" sync --json "$h/host0.vstf"
is "$rc" 0 "one trace: not an error"
is "$(json 'd["quality"] == "absent" and d["traces"][0]["slope"] == 1')" 1 "one trace: absent, identity"
printf '%s' "$err" | grep -q 'one trace only'
ok $? "one trace: the warning says so"
"$SHT" gen kernel -o "$SHT_TMP/k1.vstf" --events 5000 >/dev/null &&
	"$SHT" gen kernel -o "$SHT_TMP/k2.vstf" --events 5000 --seed 2 >/dev/null
ok $? "two single-host kernel traces"
run "$SHT" sync --json "$SHT_TMP/k1.vstf" "$SHT_TMP/k2.vstf"
is "$rc" 0 "no network events: not an error"
is "$(json 'd["quality"] == "absent" and d["matches"] == 0 and all(t["slope"] == 1 and t["offset"] == 0 for t in d["traces"])')" 1 \
	"no network events: absent, identity transforms"
printf '%s' "$err" | grep -q 'no TCP packet was matched'
ok $? "no network events: the warning says so"

traces=${SHT_SHARED:-}/traces
if [ -z "${SHT_SHARED:-}" ] || [ ! -d "$traces/synctraces" ]; then
	diag "no real traces: ${traces} is absent (set SHT_SHARED)"
	done_testing
fi
src=$traces/synctraces/scp_src
dst=$traces/synctraces/scp_dest
run "$SHT" sync "$src" "$dst"
if [ "$rc" -eq 1 ] && printf '%s' "$err" | grep -q 'without libbabeltrace2'; then
	diag "libsht built without libbabeltrace2: CTF synchronization skipped"
	done_testing
fi

# ---- synctraces --------------------------------------------------------------
is "$rc" 0 "sync synctraces"
printf '%s\n' "$out" | grep -qx "  slope   $TC_SLOPE"
ok $? "text: scp_src's slope is Trace Compass's"
printf '%s\n' "$out" | grep -qx "  offset  $TC_OFFSET"
ok $? "text: scp_src's offset is Trace Compass's"
printf '%s\n' "$out" | grep -qx 'matches 46, quality accurate'
ok $? "text: 46 matches, accurate"
run "$SHT" sync --json "$src" "$dst"
is "$(jtext 'd["traces"][0]["slope"]')" "$TC_SLOPE" "JSON: slope with all its digits"
is "$(jtext 'd["traces"][0]["offset"]')" "$TC_OFFSET" "JSON: offset with all its digits"
is "$(jtext 'd["traces"][1]["slope"] + " " + d["traces"][1]["offset"]')" "1 0" "JSON: scp_dest identity"
is "$(jtext 'd["matches"] + " " + d["quality"]')" "46 accurate" "JSON: matches and quality"
is "$(json 'd["traces"][0]["host"] == "74715693-28c1-4d0d-bee9-24790a4942b0" and d["traces"][1]["reference"]')" 1 \
	"JSON: hosts are the clock UUIDs, scp_dest the reference"
run "$SHT" sync "$src" "$src"
is "$(printf '%s\n' "$out" | grep -c 'quality absent')" 1 "one host twice: absent"
printf '%s' "$err" | grep -q 'come from one host'
ok $? "one host: the warning says so"

# ---- build --sync ----------------------------------------------------------------
o=$SHT_TMP/exp
rm -rf -- "$o"
run "$SHT" build --sync "$src" "$dst" -o "$o" --json --no-progress
is "$rc" 0 "build --sync of synctraces"
is "$(jtext 'd["sync"]["traces"][0]["slope"] + " " + str(d["sync"]["stored"])')" "$TC_SLOPE False" \
	"synchronized (computed), Trace Compass's slope"
is "$(json '[h["file"] for h in d["histories"]] == ["'"$o"'/scp_src.sht", "'"$o"'/scp_dest.sht"] and not any(h["reused"] for h in d["histories"])')" 1 \
	"two histories built in DIR"
start_src=$(json 'd["histories"][0]["start"]')
start_dst=$(json 'd["histories"][1]["start"]')
# scp_src's first event 1361214076525090092 on scp_dest's clock, as the
# transform puts it (Trace Compass's fast transform, within 2 ns of exact)
want=$("$PY" -c '
from decimal import Decimal as D, getcontext
getcontext().prec = 60
print(int(D("'"$TC_SLOPE"'") * 1361214076525090092 + D("'"$TC_OFFSET"'")))')
is "$(( start_src - want <= 2 && want - start_src <= 2 ))" 1 \
	"scp_src's history starts on the corrected clock ($start_src, exact $want)"
is "$start_dst" 1361214078963711320 "scp_dest's history starts at its own first event"
run "$SHT" build --sync "$src" "$dst" -o "$o" --json --no-progress
is "$(json 'd["sync"]["stored"] and all(h["reused"] for h in d["histories"])')" 1 \
	"a second build reuses the stored synchronization and both histories"
rm -f -- "$o/scp_dest.sht"
run "$SHT" build --sync "$src" "$dst" -o "$o" --json --no-progress
is "$(json 'd["sync"]["stored"] and d["histories"][0]["reused"] and not d["histories"][1]["reused"]')" 1 \
	"a lost history is rebuilt with the stored synchronization"
run "$SHT" build --sync "$src" "$dst" -o "$o" --json --no-progress --force
is "$(json 'not d["sync"]["stored"] and not any(h["reused"] for h in d["histories"])')" 1 \
	"--force synchronizes and builds again"
"$SHT" check "$o/scp_src.sht" >/dev/null
ok $? "the corrected history checks"
run "$SHT" info --json "$o/scp_src.sht"
is "$(jtext 'd["sync"]["quality"] + " " + d["sync"]["traces"][0]["slope"]')" "accurate $TC_SLOPE" \
	"sht info shows the stored synchronization"
run "$SHT" build --sync "$src" -o "$SHT_TMP/one" --no-progress
is "$rc" 0 "build --sync of one trace: built"
printf '%s' "$err" | grep -q 'one trace only'
ok $? "with the warning"
run "$SHT" info --json "$SHT_TMP/one/scp_src.sht"
is "$(json 'd["sync"]["quality"]')" absent "one trace: absent stored"

# partial histories on the corrected clock replay their trace through its
# transform: their answers are the full corrected history's
pd=$SHT_TMP/partial
rm -rf -- "$pd"
expect_rc 0 "build --sync --partial" "$SHT" build --sync "$src" "$dst" -o "$pd" \
	--partial 5000 --no-progress
at=1361214085000000000
run "$SHT" query "$pd/scp_src.sht" --at $at --trace "$src"
is "$rc" 0 "query of the partial corrected history"
partial_out=$out
run "$SHT" query "$o/scp_src.sht" --at $at
is "$partial_out" "$out" "equals the full corrected history's answer"
expect_rc 1 "a trace outside the experiment is refused" \
	"$SHT" query "$pd/scp_src.sht" --at $at --trace "$traces/bug446190"
printf '%s' "$err" | grep -q 'not one of them'
ok $? "the message says so"

# ---- generated CTF hosts ------------------------------------------------------------
c=$SHT_TMP/ctfhosts
rm -rf -- "$c"
expect_rc 0 "gen kernel --hosts 2 (CTF)" "$SHT" gen kernel -o "$c" --hosts 2 --events 50000
run "$SHT" sync --json "$c/host0" "$c/host1"
is "$(json 'd["quality"] == "accurate" and d["traces"][0]["host"] != d["traces"][1]["host"]')" 1 \
	"CTF hosts: accurate, two clock UUIDs"
done_testing
