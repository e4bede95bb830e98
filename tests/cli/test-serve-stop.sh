# test-serve-stop.sh: sht serve stopped (SIGTERM, SIGINT) while it
# analyses a trace: it exits 0 within seconds, and its cache holds no
# partial file and no history that is not complete (each one there
# passes sht check); started again on that cache it analyses the trace
# and answers.
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

trace=$SHT_TMP/big
"$SHT" gen kernel -o "$trace" --events 3000000 --cpus 4 >/dev/null 2>&1
ok $? "a 3 M-event trace to analyse"

# start_serve: sht serve on the cache in the background; $spid, $base.
start_serve()
{
	rm -f "$SHT_TMP/port"
	"$SHT" serve --port 0 --port-file "$SHT_TMP/port" --root "$SHT_TMP" \
		--cache "$SHT_TMP/cache" --quiet 2>>"$SHT_TMP/serve.err" &
	spid=$!
	for _ in $(seq 300); do
		[ -s "$SHT_TMP/port" ] && break
		sleep 0.05
	done
	base=http://127.0.0.1:$(cat "$SHT_TMP/port")/tsp/api
}

# open_trace: POST the trace, then an experiment of it; its UUID in $exp.
open_trace()
{
	local t
	t=$(curl -sf -H 'Content-Type: application/json' -X POST "$base/traces" \
		-d "{\"parameters\":{\"uri\":\"$trace\",\"name\":\"big\"}}" |
		"$PY" -c 'import json,sys; print(json.load(sys.stdin)["UUID"])')
	exp=$(curl -sf -H 'Content-Type: application/json' -X POST "$base/experiments" \
		-d "{\"parameters\":{\"name\":\"big\",\"traces\":[\"$t\"]}}" |
		"$PY" -c 'import json,sys; print(json.load(sys.stdin)["UUID"])')
}

# indexing: the experiment's indexingStatus.
indexing()
{
	curl -sf "$base/experiments/$exp" |
		"$PY" -c 'import json,sys; print(json.load(sys.stdin)["indexingStatus"])'
}

# stop_while_running SIG: open, wait until the analyses run, send SIG;
# the server must exit 0 within 60 s.
stop_while_running()
{
	local sig=$1 st rc
	start_serve
	open_trace
	st=$(indexing)
	is "$st" RUNNING "SIG$sig: the trace is being analysed when the signal comes"
	kill -"$sig" "$spid"
	for _ in $(seq 600); do
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$spid" 2>/dev/null; then
		kill -9 "$spid"
		ok 1 "SIG$sig: sht serve stops within 60 s"
	else
		wait "$spid"
		rc=$?
		is "$rc" 0 "SIG$sig: sht serve stops within 60 s, exit status 0"
	fi
}

# cache_sound: no partial file; every history in the cache is complete.
cache_sound()
{
	local bad=0 f
	is "$(find "$SHT_TMP/cache" -name '*.tmp-*' | wc -l)" 0 "$1: no partial file left in the cache"
	for f in $(find "$SHT_TMP/cache" -name '*.sht'); do
		"$SHT" check "$f" >/dev/null 2>&1 || { bad=1; echo "# $f fails sht check"; }
	done
	ok $bad "$1: every history left in the cache passes sht check"
}

stop_while_running TERM
cache_sound "after SIGTERM"
stop_while_running INT
cache_sound "after SIGINT"

# Again, to the end: the analyses complete and the kernel view answers.
start_serve
open_trace
for _ in $(seq 1200); do
	[ "$(indexing)" = COMPLETED ] && break
	sleep 0.25
done
is "$(indexing)" COMPLETED "started again on that cache, the trace is analysed"
n=$(curl -sf -H 'Content-Type: application/json' -X POST \
	"$base/experiments/$exp/outputs/timeGraph/org.eclipse.tracecompass.internal.analysis.os.linux.core.threadstatus.ThreadStatusDataProvider/tree" \
	-d '{"parameters":{}}' | "$PY" -c 'import json,sys; print(len(json.load(sys.stdin)["model"]["entries"]))')
ok $((n > 10 ? 0 : 1)) "... and its Control Flow tree has its threads ($n rows)"
kill -TERM "$spid"
wait "$spid"
cache_sound "after a complete run"
done_testing
