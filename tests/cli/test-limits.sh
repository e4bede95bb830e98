# test-limits.sh: sht-limits (bench/limits.c) measures the machine on a
# small file and says so in one JSON line of sane positive numbers; bad
# options fail cleanly.
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

LIMITS=$(dirname "$SHT")/sht-limits
if [ ! -x "$LIMITS" ]; then
	echo "1..0 # SKIP sht-limits not built"
	exit 77
fi

expect_rc 0 "a small run" "$LIMITS" --dir "$SHT_TMP" --mb 16 --mem-mb 64
is "$(json 'all(isinstance(d[k], (int, float)) and d[k] > 0 for k in
	("seq_write_MBps", "seq_read_cold_MBps", "seq_read_warm_MBps",
	 "mem_latency_ns", "mem_bw_GBps", "rand_read_4k_us", "cores", "ram_gib"))')" \
	1 "every figure is a positive number"
# Loose physical bounds: a load takes 0.1 ns .. 10 us; a 4 KiB read under
# a second; memory moves 0.01 .. 10 000 GB/s; disks 0.1 .. 100 000 MB/s.
is "$(json '(0.1 < d["mem_latency_ns"] < 10000 and d["rand_read_4k_us"] < 1e6
	and 0.01 < d["mem_bw_GBps"] < 1e4
	and all(0.1 < d[k] < 1e5 for k in ("seq_write_MBps", "seq_read_cold_MBps",
	"seq_read_warm_MBps")))')" 1 "figures within physical bounds"
is "$(json 'd["cpu"] != "" and d["file_mib"] == 16 and d["mem_mib"] == 64')" 1 \
	"machine and sizes stated"
is "$(ls -A "$SHT_TMP" | grep -c sht-limits)" 0 "test file removed"

for args in "--mb 0" "--mb x" "--mb" "--mem-mb 999999" "--bogus 1" \
	"--dir $SHT_TMP/no/such/dir --mb 1"; do
	# shellcheck disable=SC2086
	expect_rc 2 "refused: '$args'" "$LIMITS" $args
	no_crash "no crash for '$args'"
done

done_testing
