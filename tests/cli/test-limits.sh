# test-limits.sh: sht-limits (bench/limits.c) measures the machine on a
# small file and says so in one JSON line of sane positive numbers per
# run, and a line of medians with --repeat; bad options fail cleanly.
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

LIMITS=$(dirname "$SHT")/sht-limits
if [ ! -x "$LIMITS" ]; then
	echo "1..0 # SKIP sht-limits not built"
	exit 77
fi

expect_rc 0 "a small run" "$LIMITS" --dir "$SHT_TMP" --limit-bytes 16M --quick
is "$(json 'all(isinstance(d[k], (int, float)) and d[k] > 0 for k in
	("write_nosync_MBps", "write_fsync_MBps", "read_warm_MBps",
	 "read_cold_MBps", "pread64k_warm_p50_us", "pread64k_cold_p50_us",
	 "pread4k_cold_mean_us", "mem_latency_ns_32KiB", "mem_latency_ns_1MiB",
	 "mem_latency_ns_16MiB", "mem_read_GBps", "mem_copy_GBps", "clock_ns",
	 "cpus", "mem_bytes"))')" \
	1 "every figure is a positive number"
# Loose physical bounds: a load takes 0.1 ns .. 10 us; a read under a
# second; memory moves 0.01 .. 10 000 GB/s; disks 0.1 .. 100 000 MB/s.
is "$(json '(all(0.1 < d[k] < 1e4 for k in ("mem_latency_ns_32KiB",
	"mem_latency_ns_1MiB", "mem_latency_ns_16MiB"))
	and all(d[k] < 1e6 for k in ("pread4k_cold_mean_us",
	"pread64k_warm_p50_us", "pread64k_cold_p50_us"))
	and all(0.01 < d[k] < 1e4 for k in ("mem_read_GBps", "mem_copy_GBps"))
	and all(0.1 < d[k] < 1e5 for k in ("write_fsync_MBps", "read_cold_MBps",
	"read_warm_MBps")))')" 1 "figures within physical bounds"
is "$(json '(d["mode"] == "limits" and d["type"] == "run" and d["cpu"] != ""
	and d["file_bytes"] == 16 << 20 and "mem_latency_ns_256MiB" not in d)')" 1 \
	"machine and sizes stated (--quick: no 256 MiB chase)"
is "$(ls -A "$SHT_TMP" | grep -c sht-limits)" 0 "test file removed"

expect_rc 0 "two runs" "$LIMITS" --dir "$SHT_TMP" --limit-bytes 1M --quick \
	--repeat 2
is "$(printf '%s\n' "$out" | python3 -c 'import json, sys
d = [json.loads(l) for l in sys.stdin]
print(len(d), [x["type"] for x in d], d[2]["runs"])')" \
	"3 ['run', 'run', 'median'] 2" "--repeat 2: two runs and their medians"

for args in "--limit-bytes 0" "--limit-bytes x" "--limit-bytes" \
	"--repeat 0" "--bogus 1" "extra" \
	"--dir $SHT_TMP/no/such/dir --limit-bytes 1M"; do
	# shellcheck disable=SC2086
	expect_rc 2 "refused: '$args'" "$LIMITS" $args
	no_crash "no crash for '$args'"
done

done_testing
