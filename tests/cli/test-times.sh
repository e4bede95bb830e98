# test-times.sh: times on the command line: every form a time option
# takes names the same instant as its nanoseconds (query --at, history
# --from/--to), --time-format prints times that read back as the same
# nanoseconds (each printed start fed back to --at gives the interval
# that starts there), --resolution takes durations, and bad forms are
# usage errors.  On a generated kernel trace, in several time zones.
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

k=$SHT_TMP/kt
f=$SHT_TMP/kt.sht
rm -rf -- "$k" "$f"
expect_rc 0 "gen kernel" "$SHT" gen kernel -o "$k" --events 20000 --cpus 2 \
	--threads 40 --seed 9
expect_rc 0 "build" "$SHT" build "$k" -o "$f" --no-progress
run "$SHT" describe "$f" --json
start=$(json 'd["start"]')
end=$(json 'd["end"]')
a=CPUs/0/Current_thread

# The JSON answer (start of the interval) of query --at T.
at_start()
{
	"$SHT" query "$f" --at "$1" --attribute "$a" --json |
		"$PY" -c 'import json,sys; print(json.load(sys.stdin)[0]["start"])'
}

t=$((start + 1234567))
want=$(at_start "$t")
is "$(at_start +1234567ns)" "$want" "+Nns is start + N"
is "$(at_start +1234.567us)" "$want" "+N.Fus"
is "$(at_start +1.234567ms)" "$want" "+N.Fms"
is "$(at_start '+0.001234567 s')" "$want" "+N.F s, with a space"
is "$(at_start start)" "$(at_start "$start")" "start"
is "$(at_start end)" "$(at_start "$end")" "end"
for tz in UTC Asia/Kolkata America/New_York; do
	clock=$(TZ=$tz "$SHT" history "$f" --attribute "$a" --from "$t" --to "$t" \
		--time-format clock | sed -n '2s/.*\[\([^,]*\),.*/\1/p')
	ns=$("$SHT" history "$f" --attribute "$a" --from "$t" --to "$t" --json |
		"$PY" -c 'import json,sys; print(json.load(sys.stdin)[0]["start"])')
	is "$(TZ=$tz at_start "$clock")" "$ns" \
		"TZ=$tz: the clock form $clock reads back as $ns"
done
run env TZ=UTC "$SHT" query "$f" --at "$t" --attribute "$a" --time-format clock
case $out in "# times: time of day on "[0-9][0-9][0-9][0-9]-*", UTC+00:00 UTC"*) r=0 ;; *) r=1 ;; esac
ok $r "clock: the first line gives the day and the time zone"
run "$SHT" query "$f" --at "$t" --attribute "$a" --time-format relative
case $out in "# times: seconds after the history's start, $start = "*) r=0 ;; *) r=1 ;; esac
ok $r "relative: the first line gives the start"

# Round trip over a whole history: each interval printed in a format, its
# start read back through --at, is the interval starting there.
"$SHT" history "$f" --attribute "$a" --to "$((start + 2000000))" --json |
	"$PY" -c 'import json,sys; [print(o["start"]) for o in json.load(sys.stdin)]' \
	> "$SHT_TMP/starts-ns"
for fmt in clock relative; do
	"$SHT" history "$f" --attribute "$a" --to "$((start + 2000000))" \
		--time-format "$fmt" | sed -n '2,$s/^[^[]*\[\([^,]*\),.*/\1/p' \
		> "$SHT_TMP/starts-$fmt"
	bad=0 n=0
	while read -r s; do
		n=$((n + 1))
		got=$(at_start "$s")
		want=$(sed -n "${n}p" "$SHT_TMP/starts-ns")
		[ "$got" = "$want" ] || { bad=$((bad + 1)); diag "$fmt '$s': $got, not $want"; }
	done < "$SHT_TMP/starts-$fmt"
	ok $(( bad != 0 || n < 5 )) "$fmt: $n printed starts read back as their interval's start"
done

# history --from/--to in every form give the same intervals as in ns.
want=$("$SHT" history "$f" --attribute "$a" --from "$((start + 1000000))" \
	--to "$((start + 3000000))" --json)
is "$("$SHT" history "$f" --attribute "$a" --from +1ms --to +3ms --json)" "$want" \
	"history --from +1ms --to +3ms"
is "$("$SHT" history "$f" --attribute "$a" --from +1ms --to end --json)" \
	"$("$SHT" history "$f" --attribute "$a" --from "$((start + 1000000))" --json)" \
	"history --to end"
is "$("$SHT" history "$f" --attribute "$a" --resolution 250us --json)" \
	"$("$SHT" history "$f" --attribute "$a" --resolution 250000 --json)" \
	"--resolution 250us is 250000 ns"

for bad in 25:00:00 12:00 +1.5 +1h +-2ms 2016-13-01T00:00:00 1.5 '' startx \
	   +0.0000000001s; do
	expect_rc 2 "--at '$bad' is a usage error" "$SHT" query "$f" --at "$bad"
	case $err in "sht: invalid time '$bad' for --at: "*|"sht: invalid value '$bad' for --at"*) ;;
	*) diag "message: $err" ;; esac
done
expect_rc 2 "--time-format other" "$SHT" query "$f" --at 0 --time-format iso
expect_rc 2 "--resolution 1x" "$SHT" history "$f" --attribute "$a" --resolution 1x
expect_rc 1 "a time outside the history" "$SHT" query "$f" --at +1000s
expect_rc 1 "a local time that does not exist (DST)" env TZ=Europe/Paris \
	"$SHT" query "$f" --at "2016-03-27 02:30:00"
case $err in *"no such local time on 2016-03-27"*) r=0 ;; *) r=1 ;; esac
ok $r "the DST gap is named"

done_testing
