# test-view.sh: `sht view` and the viewer's files served by sht serve:
# the page's URL on a line of its own, the experiment it names open on the
# server, a browser started through xdg-open only when a display is set,
# the page and its policy headers, no file outside the web directory, a
# broken --analysis rules file refused at start-up, a dead server's partial
# files removed from the cache,
# sht's /sht/api extension confined to --root, and a clean stop on SIGINT.
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

: "${SHT_SHARED:?}"
trace=$SHT_SHARED/traces/many-threads
traces=$(cd "$SHT_SHARED/traces" && pwd -P)

expect_rc 0 "sht view --help" "$SHT" view --help
case $out in "Usage: sht view TRACE..."*) r=0 ;; *) r=1 ;; esac
ok $r "sht view --help prints its usage"
expect_rc 2 "sht view without a trace is a usage error" "$SHT" view --no-browser
expect_rc 1 "sht view of a missing trace fails" "$SHT" view "$SHT_TMP/none" --no-browser --port 0
case $err in *"cannot view"*) r=0 ;; *) r=1 ;; esac
ok $r "... saying it cannot view it"
# A rules file that does not compile stops the server at start-up, with
# the compiler's message (as sht build), not an empty analysis later.
printf 'garbage\n' >"$SHT_TMP/bad.rules"
expect_rc 1 "sht serve --analysis with a broken rules file fails at start-up" \
	timeout 30 "$SHT" serve --analysis "$SHT_TMP/bad.rules" --port 0 \
	--cache "$SHT_TMP/cache"
case $err in *"bad.rules:1: expected provider"*) r=0 ;; *) r=1 ;; esac
ok $r "... with the compiler's message"

# The partial files a killed server left in its cache (NAME.tmp-PID-N):
# those of dead processes are removed at start-up, a live one's are kept.
dead=$(sh -c 'echo $$')
mkdir -p "$SHT_TMP/stale/t"
: >"$SHT_TMP/stale/t/kernel.sht.tmp-$dead-3"
: >"$SHT_TMP/stale/t/kernel.sht.tmp-$$-1"
: >"$SHT_TMP/stale/t/kernel.sht"
timeout -s INT 3 "$SHT" serve --port 0 --cache "$SHT_TMP/stale" 2>"$SHT_TMP/stale.err"
is "$(cd "$SHT_TMP/stale/t" && ls | tr '\n' ' ')" "kernel.sht kernel.sht.tmp-$$-1 " \
	"sht serve removes a dead server's partial files from its cache, no other"
grep -q "removed 1 partial file" "$SHT_TMP/stale.err"
ok $? "... and says so"

# A fake xdg-open records the URL it is given.
mkdir -p "$SHT_TMP/bin"
cat >"$SHT_TMP/bin/xdg-open" <<EOF
#!/bin/sh
echo "\$1" >"$SHT_TMP/opened"
EOF
chmod +x "$SHT_TMP/bin/xdg-open"

# start_view OUT [ARG...]: sht view in the background; its pid in $vpid,
# the page's URL in $url once printed.
start_view()
{
	local o=$1
	shift
	rm -f "$o"
	"$SHT" view "$trace" --port 0 --cache "$SHT_TMP/cache" "$@" >"$o" 2>"$o.err" &
	vpid=$!
	url=
	for _ in $(seq 300); do
		url=$(grep -m1 '^http://' "$o" 2>/dev/null)
		[ -n "$url" ] && break
		kill -0 "$vpid" 2>/dev/null || break
		sleep 0.1
	done
}

start_view "$SHT_TMP/view.out" --no-browser
case $url in http://127.0.0.1:*/\#exp=*) r=0 ;; *) r=1 ;; esac
ok $r "the page's URL is printed on a line of its own"
[ $r -eq 0 ] || diag "stdout: $(cat "$SHT_TMP/view.out"); stderr: $(cat "$SHT_TMP/view.out.err")"
base=${url%%/#*}
uuid=${url##*#exp=}

run curl -sf "$base/tsp/api/experiments/$uuid"
is "$(json 'd["name"] + " " + d["traces"][0]["name"]')" "many-threads many-threads" \
	"the URL names the experiment of the trace, open on the server"
run curl -s -D "$SHT_TMP/h" -o "$SHT_TMP/page" "$base/"
case $(cat "$SHT_TMP/page") in *"<title>sht viewer</title>"*) r=0 ;; *) r=1 ;; esac
ok $r "/ is the viewer's page"
grep -qi '^content-type: text/html; charset=utf-8' "$SHT_TMP/h"
ok $? "... served as text/html"
grep -qi "^content-security-policy: default-src 'self'" "$SHT_TMP/h"
ok $? "... with a Content-Security-Policy that keeps it to this server"
run curl -s -o /dev/null -w '%{http_code} %{content_type}' "$base/js/app.js"
is "$out" "200 text/javascript; charset=utf-8" "its modules are served as JavaScript"
for p in /../../etc/passwd /js/../../../etc/passwd /.hidden /js/%2e%2e/app.js /index.html/x /nonexistent.js; do
	run curl -s --path-as-is -o /dev/null -w '%{http_code}' "$base$p"
	is "$out" 404 "no file for $p"
done
run curl -s -o /dev/null -w '%{http_code}' -X POST "$base/index.html"
is "$out" 405 "files are read-only (POST: 405)"

run curl -sf "$base/sht/api/roots"
is "$(json 'd["roots"]')" "['$traces']" "/sht/api/roots: the trace's directory is the root"
run curl -sf "$base/sht/api/files?path=$traces"
is "$(json '[e["kind"] for e in d["entries"] if e["name"] == "many-threads"]')" "['ctf']" \
	"/sht/api/files lists the traces under the root"
run curl -s -o /dev/null -w '%{http_code}' "$base/sht/api/files?path=/etc"
is "$out" 403 "... and nothing outside it (403)"
run curl -s -o /dev/null -w '%{http_code}' "$base/sht/api/files?path=$traces/../.."
is "$out" 403 "... not through .. either"
run curl -s -o /dev/null -w '%{http_code}' "$base/sht/api/files"
is "$out" 400 "... and wants a path (400)"

[ ! -e "$SHT_TMP/opened" ]
ok $? "--no-browser starts no browser"
kill -INT "$vpid"
wait "$vpid"
is "$?" 0 "SIGINT stops it cleanly"

# With a display: xdg-open gets the URL; without one: nothing is run.
rm -f "$SHT_TMP/opened"
PATH=$SHT_TMP/bin:$PATH DISPLAY=:99 start_view "$SHT_TMP/view2.out"
for _ in $(seq 50); do [ -s "$SHT_TMP/opened" ] && break; sleep 0.1; done
is "$(cat "$SHT_TMP/opened" 2>/dev/null)" "$url" "with a display, the page is opened in a browser (xdg-open URL)"
kill -TERM "$vpid"
wait "$vpid"
is "$?" 0 "SIGTERM stops it cleanly"
rm -f "$SHT_TMP/opened"
PATH=$SHT_TMP/bin:$PATH DISPLAY= WAYLAND_DISPLAY= start_view "$SHT_TMP/view3.out"
sleep 0.5
[ -n "$url" ] && [ ! -e "$SHT_TMP/opened" ]
ok $? "without a display, no browser is started"
kill -INT "$vpid"
wait "$vpid"

done_testing
