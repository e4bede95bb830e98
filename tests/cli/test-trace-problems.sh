# test-trace-problems.sh: broken traces given to `sht build` (issue 6,
# item 5; docs/RELIABILITY.md §5): events out of time order, truncated
# stream files, corrupted packets, missing or damaged metadata, lost
# events, a packet babeltrace2 loops on or aborts on, damaged VSTF files.  Each has a
# defined behaviour: an error naming where (exit status 1, no history
# file, no temporary file left), or a warning and a history.  The traces
# are made here by `sht gen kernel` (deterministic) and broken with dd.
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

cd "$SHT_TMP" || exit 1

# put_bytes FILE OFFSET HEX...: overwrite bytes in place.
put_bytes()
{
	local f=$1 off=$2 s=
	shift 2
	for b in "$@"; do s="$s\\x$b"; done
	printf "$s" | dd of="$f" bs=1 seek="$off" conv=notrunc status=none
}

# fresh NAME FROM: NAME is a copy of trace FROM.
fresh() { rm -rf "$1"; cp -r "$2" "$1"; }

# refused DESC PATTERN TRACE [ENV...]: sht build exits 1 with a message
# matching PATTERN, without a crash, and leaves no file behind.
refused()
{
	local desc=$1 pat=$2 trace=$3
	shift 3
	rm -f out.sht out.sht.building out.sht.resume
	run env "$@" timeout 120 "$SHT" build "$trace" -o out.sht --no-progress
	if [ "$rc" -eq 1 ]; then ok 0 "$desc: exit status 1"; else
		ok 1 "$desc: exit status 1"; diag "rc $rc; stderr: $err"; fi
	case $err in
	*$pat*) ok 0 "$desc: the message says where ($pat)" ;;
	*) ok 1 "$desc: the message says where ($pat)"; diag "stderr: $err" ;;
	esac
	no_crash "$desc: no crash"
	left=$(ls out.sht out.sht.building out.sht.resume 2>/dev/null | wc -l)
	is "$left" 0 "$desc: no history file, no temporary file"
}

"$SHT" gen kernel -o two --events 20000 --cpus 2 --threads 20 --no-progress >/dev/null
"$SHT" gen kernel -o one --events 2000 --cpus 1 --threads 5 --no-progress >/dev/null
"$SHT" gen kernel -o k.vstf --events 2000 --cpus 2 --threads 5 --no-progress >/dev/null
# 20000 events over 2 CPUs: each stream file has a full packet of 256 KiB
# and a second one; a packet starts with an 84-byte header and context
# (src/gen/ctfw-int.h), then events: a 4-byte id, an 8-byte timestamp.
P2=262144
expect_rc 0 "the sound trace builds" "$SHT" build two -o good.sht --no-progress

# Events out of time order.  One stream: its first event 2^40 ns late.
fresh order1 one
put_bytes order1/channel0_0 $((84 + 4 + 5)) 01
refused "event out of time order (one stream)" \
	"event 1 is out of time order in stream file" order1
case $err in *"/order1/channel0_0"*) ok 0 "... names the stream file" ;;
*) ok 1 "... names the stream file"; diag "$err" ;; esac
# Two streams: babeltrace2's muxer refuses the late stream.
fresh order2 two
put_bytes order2/channel0_0 $((84 + 4 + 5)) 01
refused "event out of time order (two streams, muxer)" \
	"events (the last at t=" order2

# Truncated stream files.
fresh trunc1 two
truncate -s 200000 trunc1/channel0_0
refused "stream file cut inside a packet" "trunc1/channel0_0" trunc1
fresh trunc2 two
truncate -s $P2 trunc2/channel0_0
refused "stream file cut at a packet boundary (index present)" \
	"channel0_0 is truncated: it has 262144 bytes, but its index" trunc2
fresh trunc3 two
: >trunc3/channel0_1
refused "empty stream file (index present)" \
	"channel0_1 is truncated: it has 0 bytes" trunc3
# Without LTTng's index a cut at a packet boundary is a shorter, sound
# stream: the history covers the events there (documented limitation).
fresh trunc4 two
rm -rf trunc4/index
truncate -s $P2 trunc4/channel0_0
expect_rc 0 "cut at a packet boundary without an index: builds" \
	"$SHT" build trunc4 -o t4.sht --no-progress --json
is "$(json 'd["events"] < 20000')" 1 "... from the events that remain"

# Corrupted packets.
fresh bad1 two
put_bytes bad1/channel0_0 $P2 00 00 00 00
refused "second packet's magic number" "Invalid CTF magic number" bad1
case $err in *"after "*" events (the last at t="*) ok 0 "... after the events read" ;;
*) ok 1 "... after the events read"; diag "$err" ;; esac
fresh bad2 two
put_bytes bad2/channel0_0 $((P2 + 48)) ff ff ff ff ff ff ff 7f
refused "content size above the packet size" \
	"channel0_0: the packet at byte $P2 is corrupt: its content size, 9223372036854775807 bits, is greater than its packet size" bad2
# packet_size and content_size 0, no index: babeltrace2 2.0.4 loops for
# ever (its CLI too); sht's own walk of the packets refuses the trace
# before babeltrace2 sees it (src/trace/ctf-check.c), at once.
fresh hang one
rm -rf hang/index
put_bytes hang/channel0_0 48 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
start=$(date +%s)
refused "packet of size 0 (babeltrace2 loops)" \
	"hang/channel0_0: the packet at byte 0 is corrupt: its packet size is 0" hang \
	SHT_STALL_SECONDS=30
ok $(($(date +%s) - start > 10)) "... refused at once, not by the watchdog"
# The same with LTTng's index present.
fresh hangi one
put_bytes hangi/channel0_0 48 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
refused "packet of size 0, index present" \
	"hangi/channel0_0: the packet at byte 0 is corrupt: its packet size is 0" hangi
# A packet_size with its sign bit set and a sound content_size, no
# index: babeltrace2 2.0.4 fails an assertion of its own and aborts (its
# CLI too); the walk refuses the trace first.
fresh abrt one
rm -rf abrt/index
put_bytes abrt/channel0_0 56 00 00 00 00 00 00 00 80
refused "packet size above 2^63 (babeltrace2 aborts)" \
	"abrt/channel0_0: the packet at byte 0 is corrupt: its packet size, 9223372036854775808 bits, is 2^63 bits or more" abrt
# The second packet: the walk follows the first packet's size.
fresh hang2 two
rm -rf hang2/index
put_bytes hang2/channel0_1 $((P2 + 56)) 00 00 00 00 00 00 00 00
refused "second packet of size 0" \
	"hang2/channel0_1: the packet at byte $P2 is corrupt: its packet size is 0" hang2
fresh odd two
put_bytes odd/channel0_0 $((P2 + 56)) 04
refused "packet size not a whole number of bytes" \
	"is not a whole number of bytes" odd
# The walk needs the packet context's layout; with a field it cannot lay
# out (a float cpu_id: same bytes, a type babeltrace2 reads but ctf-tsdl.c
# does not) it leaves the trace to babeltrace2, and the CLI's watchdog
# and abort handler still stop what babeltrace2 does with these packets.
float_ctx() { sed -i 's/^\tuint32_t cpu_id;$/\tfloating_point { exp_dig = 8; mant_dig = 24; align = 8; } cpu_id;/' "$1/metadata"; }
fresh flt one
rm -rf flt/index
float_ctx flt
expect_rc 0 "a float in the packet context: the sound trace builds" \
	"$SHT" build flt -o flt.sht --no-progress
fresh hangf hang
float_ctx hangf
start=$(date +%s)
refused "packet of size 0 the walk cannot see (babeltrace2 loops)" \
	"made no progress for 3 s" hangf SHT_STALL_SECONDS=3
ok $(($(date +%s) - start > 60)) "... stopped within a minute"
fresh abrtf abrt
float_ctx abrtf
refused "packet size above 2^63 the walk cannot see (babeltrace2 aborts)" \
	"the process aborted while reading it" abrtf

# Metadata.
fresh meta1 two
rm meta1/metadata
refused "missing metadata" "no metadata file" meta1
fresh meta2 two
truncate -s 5000 meta2/metadata
# babeltrace2 2.0.4 leaks a few bytes on this error (not ours).
refused "truncated metadata" "Cannot create trace" meta2 \
	ASAN_OPTIONS=detect_leaks=0
fresh meta3 two
: >meta3/metadata
refused "empty metadata" "Cannot create trace" meta3

# Lost events: LTTng counts them per stream in the packet context
# (events_discarded, at offset 72); 7 lost before the second packet.
fresh lost two
put_bytes lost/channel0_0 $((P2 + 72)) 07
run "$SHT" build lost -o lost.sht --no-progress --json
is "$rc" 0 "lost events: the history is built"
is "$(json 'd["discarded_events"]')" 7 "... the loss is counted (JSON)"
is "$(json 'd["events"]')" 20000 "... every event that remains is read"
case $err in *"warning: lost: the tracer lost 7 events"*) ok 0 "... and a warning says so" ;;
*) ok 1 "... and a warning says so"; diag "$err" ;; esac
expect_rc 0 "... the history checks" "$SHT" check lost.sht

# VSTF: checksums and the trailer catch damage.
cp k.vstf v1.vstf
truncate -s $(($(stat -c %s k.vstf) - 100)) v1.vstf
refused "truncated VSTF file" "v1.vstf" v1.vstf
cp k.vstf v2.vstf
put_bytes v2.vstf 3000 5a
refused "VSTF file with a changed byte" "v2.vstf" v2.vstf
printf 'not a trace\n' >v3.vstf
refused "a text file as VSTF" "v3.vstf" v3.vstf

done_testing
