# test-resume.sh: resumable `sht build` (docs/RELIABILITY.md §4).  Every
# interrupted build is run again until it completes, and the history must
# then equal an uninterrupted build's byte for byte.
#
#  - Kills: the build of a synthetic trace (1.5 M events, 8 CPUs, CTF)
#    with a checkpoint every 50 ms (SHT_RESUME_SECONDS) is killed with
#    SIGKILL after a random delay within a third of a build's time
#    (seeded: SHT_TEST_SEED, default 6), SHT_RESUME_KILLS times (default
#    10) or until a run ends first, each run resuming the last one's
#    checkpoint, then run to its end.  The same for a partial history
#    (--partial 20000), for its VSTF copy, for 16 KiB blocks
#    (--block-size 16k), and for many-threads (a real trace, each run with
#    another --jobs).
#  - SIGINT and SIGTERM: exit status 130 / 143 after a last checkpoint,
#    FILE.building and FILE.resume kept, resumed.
#  - A full disk (RLIMIT_FSIZE below the history's size, SIGXFSZ
#    ignored): exit status 1, both files kept, resumed without the limit.
#  - --no-resume starts over; another build's checkpoint (other
#    --partial, other --block-size) and a damaged one are refused
#    ("starting the build over");
#    a second build of the same FILE while one runs is refused.
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

cd "$SHT_TMP" || exit 1
rm -rf -- *
export SHT_RESUME_SECONDS=0.05
RANDOM=${SHT_TEST_SEED:-6}
kills=${SHT_RESUME_KILLS:-10}

"$SHT" gen kernel -o big --events 1500000 --cpus 8 --threads 300 >/dev/null
ok $? "synthetic trace generated"
"$SHT" convert big -o big.vstf >/dev/null
ok $? "and its VSTF copy"

# ms TRACE ARGS...: the time of an uninterrupted build (into ref-*.sht).
ms_of()
{
	local t0=$(date +%s%N)
	"$SHT" build "$@" --no-progress --force >/dev/null 2>&1 || return 1
	echo $(( ($(date +%s%N) - t0) / 1000000 ))
}

# killed NAME TRACE ARGS...: kill the build of TRACE into NAME.sht $kills
# times, then let it end; NAME.sht must equal ref-NAME.sht.
killed()
{
	local name=$1 trace=$2
	shift 2
	local ms resumed=0 i delay pid
	ms=$(ms_of "$trace" -o "ref-$name.sht" "$@") ||
		{ ok 1 "$name: reference build"; return; }
	diag "$name: an uninterrupted build takes $ms ms"
	last_ms=$ms
	rm -f -- "$name".sht*
	for i in $(seq 1 "$kills"); do
		delay=$(( (RANDOM * 32768 + RANDOM) % (ms / 3 + 1) + 100 ))
		"$SHT" build "$trace" -o "$name.sht" --no-progress "$@" \
			>/dev/null 2>"$name.err" &
		pid=$!
		sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		grep -q "resuming the build" "$name.err" && resumed=$((resumed + 1))
		[ -e "$name.sht" ] && break        # it ended first
	done
	run "$SHT" build "$trace" -o "$name.sht" --no-progress "$@"
	is "$rc" 0 "$name: after the kills, the build completes"
	case $err in *"resuming the build"*) resumed=$((resumed + 1)) ;; esac
	cmp -s "$name.sht" "ref-$name.sht"
	ok $? "$name: the history equals the uninterrupted build's, byte for byte"
	ok $(( resumed > 0 ? 0 : 1 )) "$name: runs resumed from a checkpoint ($resumed)"
	[ ! -e "$name.sht.building" ] && [ ! -e "$name.sht.resume" ]
	ok $? "$name: no FILE.building or FILE.resume left"
	diag "$name: $i kills, $resumed runs resumed"
}

killed full big
full_ms=${last_ms:-2400}

# sleep_third: a third of the uninterrupted build's time, well before the
# end of a build started just now (fixed delays of 0.4 to 0.8 s came after
# the end once a quiet machine built in 0.66 s).
sleep_third()
{
	local d=$((full_ms / 3 + 50))
	sleep "$(printf '%d.%03d' $((d / 1000)) $((d % 1000)))"
}
killed partial big --partial 20000
killed vstf big.vstf
# 16 KiB nodes: the checkpoints restore a tree of that block size
killed small big --block-size 16k
run "$SHT" info small.sht --json
is "$(json 'd["block_size"]')" 16384 "small: 16 KiB nodes"

traces=${SHT_SHARED:-}/traces
if [ -n "${SHT_SHARED:-}" ] && [ -d "$traces/many-threads" ]; then
	kills=$(( kills < 6 ? kills : 6 ))
	# Each run decodes on another number of threads.
	jobs_killed()
	{
		local ms i delay pid resumed=0 base=150 span
		ms=$(ms_of "$traces/many-threads" -o ref-mt.sht) || return
		span=$(( ms / 3 + 1 ))
		rm -f -- mt.sht*
		for i in $(seq 1 "$kills"); do
			delay=$(( (RANDOM * 32768 + RANDOM) % span + base ))
			"$SHT" build "$traces/many-threads" -o mt.sht --no-progress \
				--jobs $((i % 3)) >/dev/null 2>mt.err &
			pid=$!
			sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
			kill -KILL "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			grep -q "resuming the build" mt.err && resumed=$((resumed + 1))
			# A build can end before its kill (a third of a second
			# in all, some thread counts faster than the reference):
			# start again from nothing and kill sooner.
			if [ -e mt.sht ]; then
				rm -f -- mt.sht*
				base=$(( base * 2 / 3 + 20 ))
				span=$(( span / 2 + 1 ))
			fi
		done
		run "$SHT" build "$traces/many-threads" -o mt.sht --no-progress --jobs 3
		is "$rc" 0 "many-threads: completes after kills, --jobs 0, 1, 2, 3"
		cmp -s mt.sht ref-mt.sht
		ok $? "many-threads: the history equals the uninterrupted build's"
		diag "many-threads: $i kills, $resumed runs resumed, $ms ms a build"
		ok $(( resumed > 0 ? 0 : 1 )) "many-threads: runs resumed ($resumed)"
	}
	jobs_killed
else
	echo "ok $((tap_run + 1)) # SKIP many-threads: no real traces"
	tap_run=$((tap_run + 1))
fi

# ---- signals -----------------------------------------------------------------
for sig in INT TERM; do
	want=$([ $sig = INT ] && echo 130 || echo 143)
	rm -f -- sig.sht*
	"$SHT" build big -o sig.sht --no-progress >/dev/null 2>sig.err &
	pid=$!
	sleep_third
	kill -$sig "$pid"
	wait "$pid"
	is "$?" "$want" "SIG$sig: exit status $want"
	grep -q "was interrupted at event" sig.err
	ok $? "SIG$sig: the message says where and how to resume"
	[ -e sig.sht.building ] && [ -e sig.sht.resume ] && [ ! -e sig.sht ]
	ok $? "SIG$sig: FILE.building and FILE.resume kept, no FILE"
	run "$SHT" build big -o sig.sht --no-progress
	case "$rc $err" in "0 "*"resuming the build"*) ok 0 "SIG$sig: resumed" ;;
	*) ok 1 "SIG$sig: resumed"; diag "rc $rc: $err" ;; esac
	cmp -s sig.sht ref-full.sht
	ok $? "SIG$sig: the history equals the uninterrupted build's"
done

# ---- full disk ---------------------------------------------------------------
rm -f -- disk.sht*
kib=$(( $(stat -c %s ref-full.sht) / 1024 ))
err=$(bash -c 'trap "" XFSZ; ulimit -f "$1"; exec "$2" build big -o disk.sht --no-progress' \
	_ $((kib / 2)) "$SHT" 2>&1 >/dev/null)
is "$?" 1 "full disk: exit status 1"
case $err in *"File too large"*"are kept"*) ok 0 "full disk: the cause, and the files kept" ;;
*) ok 1 "full disk: the cause, and the files kept"; diag "$err" ;; esac
run "$SHT" build big -o disk.sht --no-progress
case "$rc $err" in "0 "*"resuming the build"*) ok 0 "full disk: resumed once room is back" ;;
*) ok 1 "full disk: resumed once room is back"; diag "rc $rc: $err" ;; esac
cmp -s disk.sht ref-full.sht
ok $? "full disk: the history equals the uninterrupted build's"

# ---- refusals ----------------------------------------------------------------
# interrupted NAME ARGS...: a build of big into NAME.sht, stopped by SIGINT.
interrupted()
{
	rm -f -- "$1".sht*
	"$SHT" build big -o "$1.sht" --no-progress "${@:2}" >/dev/null 2>&1 &
	local pid=$!
	sleep_third
	kill -INT "$pid"
	wait "$pid"
}

interrupted again
run "$SHT" build big -o again.sht --no-progress --no-resume
case "$rc $err" in "0 "*"resuming"*) ok 1 "--no-resume starts over"; diag "$err" ;;
"0 "*) ok 0 "--no-resume starts over" ;; *) ok 1 "--no-resume starts over"; diag "$err" ;; esac
cmp -s again.sht ref-full.sht
ok $? "--no-resume: the same history"

interrupted other
run "$SHT" build big -o other.sht --no-progress --partial 20000
case $err in *"not this build's checkpoint"*"starting the build over"*)
	ok 0 "another build's checkpoint is not used" ;;
*) ok 1 "another build's checkpoint is not used"; diag "$err" ;; esac
cmp -s other.sht ref-partial.sht
ok $? "... and the build is its own"

interrupted bsize
run "$SHT" build big -o bsize.sht --no-progress --block-size 16k
case $err in *"not this build's checkpoint"*"starting the build over"*)
	ok 0 "a checkpoint of another --block-size is not used" ;;
*) ok 1 "a checkpoint of another --block-size is not used"; diag "$err" ;; esac
cmp -s bsize.sht ref-small.sht
ok $? "... and the build has its own block size"

interrupted damaged
printf 'X' | dd of=damaged.sht.resume bs=1 seek=100 conv=notrunc 2>/dev/null
run "$SHT" build big -o damaged.sht --no-progress
case $err in *"cannot be read"*"starting the build over"*)
	ok 0 "a damaged checkpoint is not used" ;;
*) ok 1 "a damaged checkpoint is not used"; diag "$err" ;; esac
cmp -s damaged.sht ref-full.sht
ok $? "... and the build is right"

rm -f -- twice.sht*
"$SHT" build big -o twice.sht --no-progress >/dev/null 2>&1 &
pid=$!
sleep_third
run "$SHT" build big -o twice.sht --no-progress
case "$rc $err" in "1 "*"another sht build of it is running"*)
	ok 0 "a second build of the same FILE is refused" ;;
*) ok 1 "a second build of the same FILE is refused"; diag "rc $rc: $err" ;; esac
wait "$pid"
cmp -s twice.sht ref-full.sht
ok $? "... and the first one ends right"

done_testing
