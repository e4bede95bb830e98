#!/usr/bin/env bash
# fuzz.sh [TARGET|all] [SECONDS]: build the fuzz targets with clang,
# libFuzzer, AddressSanitizer and UndefinedBehaviorSanitizer
# (-DSHT_FUZZ=ON) into $SHT_FUZZ_BUILD (default build/fuzz), then run each
# target (default: all of fuzz-history fuzz-vstf fuzz-ctf fuzz-rules
# fuzz-request) for
# SECONDS (default 60) on its corpus, and print one line per target:
# executions, edges covered (libFuzzer's cov), corpus size, crashes.
#
# Corpora live in $SHT_FUZZ_BUILD/corpus/TARGET and grow from run to run;
# they start from the checked-in seeds (tests/data/fuzz/*, examples/rules,
# tests/data/rules) plus seeds made here: small history files from
# `sht gen`, VSTF and CTF traces from `sht gen kernel`, and stream files
# of the real traces in $SHT_SHARED_DIR/traces (default ../shared/traces:
# copied into the corpus, never into the repository).  A crash leaves its
# input in $SHT_FUZZ_BUILD/crashes/ and makes the script exit 1: turn it
# into a regression test (the input under tests/data/fuzz/TARGET's input
# directory, which the CTest smoke run replays).
# Exit status: 0, 1 (a crash, a build failure), 77 (no libFuzzer).
# Environment: SHT_FUZZ_BUILD, SHT_SHARED_DIR, SHT_FUZZ_CC (the compiler, default
# clang; CC is not used: the other trees may be gcc),
# SHT_FUZZ_JOBS (build jobs), SHT_FUZZ_SEED (libFuzzer -seed; 0, the default:
# a random one; scripts/test.sh sets 1 for CI)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
src=$PWD

target=${1:-all}
secs=${2:-60}
root=${SHT_FUZZ_BUILD:-build/fuzz}
mkdir -p "$root"
root=$(cd "$root" && pwd)
shared=${SHT_SHARED_DIR:-$src/../shared}
all=(fuzz-history fuzz-vstf fuzz-ctf fuzz-rules fuzz-request)
if [ "$target" = all ]; then
	targets=("${all[@]}")
else
	targets=("$target")
fi

# libFuzzer comes with clang's runtimes (Debian libclang-rt-*-dev, an
# optional package of install-deps.sh): without it, say so and exit 77.
cc=${SHT_FUZZ_CC:-clang}
probe=$root/probe
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$probe.c"
if ! "$cc" -fsanitize=fuzzer,address "$probe.c" -o "$probe" >"$probe.log" 2>&1; then
	echo "fuzz.sh: $cc cannot build a libFuzzer target (see $probe.log): skipped" >&2
	exit 77
fi

echo "== fuzz.sh: build in $root/build"
CC=$cc cmake -S . -B "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DSHT_FUZZ=ON -DSHT_SANITIZE=address,undefined -DSHT_WERROR=OFF \
	>"$root/cmake.log" 2>&1 || { cat "$root/cmake.log"; exit 1; }
cmake --build "$root/build" -j "${SHT_FUZZ_JOBS:-$(nproc)}" --target sht "${targets[@]}" \
	>"$root/build.log" 2>&1 || { tail -n 40 "$root/build.log"; exit 1; }
sht=$root/build/sht

# prefix BYTE FILE OUT: OUT = the byte, then FILE.
prefix() { { printf "\\x$1"; cat "$2"; } >"$3"; }

# Seeds of each corpus (only added: a corpus keeps what it found).
seed_history() {
	local c=$1 t=$root/seedgen v b
	rm -rf "$t" && mkdir -p "$t"
	cp "$src"/tests/data/fuzz/history/* "$c"/
	for v in esht sht; do
		for b in 1k 4k; do
			"$sht" gen staircase --attributes 12 --intervals 8 --variant "$v" \
				--block-size "$b" --max-children 3 -o "$t/st-$v-$b.sht" >/dev/null &&
				prefix 01 "$t/st-$v-$b.sht" "$c/st-$v-$b"
			"$sht" gen churn --threads 20 --variant "$v" --block-size "$b" \
				-o "$t/ch-$v-$b.sht" >/dev/null &&
				prefix 01 "$t/ch-$v-$b.sht" "$c/ch-$v-$b"
		done
	done
	prefix 00 "$t/st-esht-1k.sht" "$c/st-esht-1k-raw"
	rm -rf "$t"
}

seed_vstf() {
	local c=$1 t=$root/seedgen n
	rm -rf "$t" && mkdir -p "$t"
	cp "$src"/tests/data/fuzz/vstf/* "$c"/
	for n in 30 100 400; do
		"$sht" gen kernel --format vstf --events "$n" --cpus 2 --threads 6 \
			--seed "$n" --no-progress -o "$t/k$n.vstf" >/dev/null &&
			prefix 01 "$t/k$n.vstf" "$c/kgen-$n"
	done
	rm -rf "$t"
}

# CTF: byte 0 picks the metadata (an index into SHT_FUZZ_CTF_META).
ctf_meta=()
seed_ctf() {
	local c=$1 t=$root/ctf-meta k=1 tr f
	rm -rf "$t" && mkdir -p "$t"
	cp "$src"/tests/data/fuzz/ctf/* "$c"/
	ctf_meta=("$src/tests/data/fuzz/ctf-meta/kgen.metadata")
	for tr in xml-stub-kernel-analysis context-switches/context-switches-ust bug446190; do
		[ -f "$shared/traces/$tr/metadata" ] || continue
		cp "$shared/traces/$tr/metadata" "$t/meta$k"
		ctf_meta+=("$t/meta$k")
		for f in "$shared/traces/$tr"/*; do
			case $f in */metadata|*/index) continue ;; esac
			[ -f "$f" ] && [ "$(stat -c %s "$f")" -le 262144 ] || continue
			prefix "$(printf %02x $k)" "$f" "$c/$(basename "$tr")-$(basename "$f")"
		done
		k=$((k + 1))
	done
}

seed_request() {
	cp "$src"/tests/data/fuzz/request/* "$1"/
}
seed_rules() {
	cp "$src"/examples/rules/*.xml "$src"/examples/rules/*.rules \
		"$src"/tests/data/rules/* "$1"/ 2>/dev/null
	return 0
}

# bt2_only BIN STAMP TARGET: replay the crash, timeout and oom inputs of
# TARGET newer than STAMP; prints "inputs ours unreproduced": ours counts
# the reports whose first frame that is not the sanitizer's, libFuzzer's
# or libc's is outside babeltrace2 (and glib, which only it calls here:
# the fast unwinder stops in glib).
bt2_only()
{
	local bin=$1 stamp=$2 t=$3 f out frame n=0 ours=0 nrep=0
	for f in $(find "$root/crashes" -name "$t-*" -newer "$stamp" | head -n 30); do
		n=$((n + 1))
		out=$(env "${env[@]}" "$bin" -runs=1 -timeout=10 -rss_limit_mb=4096 \
			-detect_leaks=0 "$f" 2>&1)
		case $out in
		*ERROR:* | *Assertion*) ;;
		*) nrep=$((nrep + 1)); continue ;;
		esac
		frame=$(printf '%s\n' "$out" | grep -E '^ +#[0-9]+ 0x' |
			grep -vE 'sanitizer|interceptor|__asan|__lsan|__ubsan|fuzzer::|libc\.so|sysdeps|pthread_kill|raise\.c|abort\.c|libc_start|_start |asan_|ubsan_' |
			head -n 1)
		case $frame in
		*babeltrace* | *libglib*) ;;
		*) ours=$((ours + 1)); echo "fuzz.sh: $f: not in babeltrace2: $frame" >&2 ;;
		esac
	done
	echo "$n $ours $nrep"
}

status=0
summary=()
for t in "${targets[@]}"; do
	c=$root/corpus/$t
	mkdir -p "$c" "$root/crashes"
	opts=(-max_total_time="$secs" -print_final_stats=1 -timeout=20 -rss_limit_mb=4096
	      -seed="${SHT_FUZZ_SEED:-0}" -artifact_prefix="$root/crashes/$t-")
	env=()
	case $t in
	fuzz-history) seed_history "$c"; opts+=(-max_len=65536) ;;
	fuzz-vstf)    seed_vstf "$c"; opts+=(-max_len=65536) ;;
	# babeltrace2 2.0.4 loops for ever, or fails its own assertions, on
	# some streams (docs/RELIABILITY.md §2): fork mode goes on past
	# timeouts and crashes, keeps their inputs in crashes/, and each is
	# then replayed and classified (bt2_only): one whose stack does not
	# start in babeltrace2 fails the run.
	fuzz-ctf)     seed_ctf "$c"; opts+=(-max_len=262144 -detect_leaks=0 -fork=1
	                                    -ignore_timeouts=1 -ignore_crashes=1 -timeout=10)
	              env=(SHT_FUZZ_CTF_META="$(IFS=:; echo "${ctf_meta[*]}")") ;;
	fuzz-rules)   seed_rules "$c"; opts+=(-max_len=65536) ;;
	fuzz-request) seed_request "$c"; opts+=(-max_len=8192) ;;
	*) echo "fuzz.sh: unknown target $t (${all[*]})" >&2; exit 2 ;;
	esac
	log=$root/$t.log
	echo "== fuzz.sh: $t for $secs s (corpus $c, log $log)"
	touch "$root/stamp-$t"
	env "${env[@]}" "$root/build/$t" "${opts[@]}" "$c" >"$log" 2>&1
	rc=$?
	bt2=""
	if [ "$t" = fuzz-ctf ]; then
		read -r n_bad n_ours n_nrep < <(bt2_only "$root/build/$t" "$root/stamp-$t" "$t")
		if [ "$n_ours" -eq 0 ]; then
			# Fork mode's own status counts the ignored crashes.
			grep -q 'INFO: fuzzed for' "$log" && rc=0
		else
			rc=1
		fi
		[ "$n_bad" -eq 0 ] || bt2=", $((n_bad - n_nrep)) babeltrace2 crashes/hangs/ooms + $n_nrep not reproduced (inputs in crashes/)"
	fi
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	# Fork mode prints no final stats: its last "#N: cov: ..." line.
	[ -n "$execs" ] || execs=$(grep -oE '^#[0-9]+: cov' "$log" | tail -n 1 | tr -dc 0-9)
	cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -n 1 | cut -d' ' -f2)
	files=$(find "$c" -type f | wc -l)
	if [ "$rc" -ne 0 ]; then
		status=1
		crash="CRASH (rc $rc, see $log and $root/crashes)"
		grep -E 'ERROR|SUMMARY|runtime error' "$log" | head -n 5
	else
		crash="0 crashes"
	fi
	crash="$crash$bt2"
	summary+=("$(printf '%-13s %10s execs  %6s edges  %6s inputs  %s' \
		"$t" "${execs:-?}" "${cov:-?}" "$files" "$crash")")
done

echo
echo "== fuzz.sh summary ($secs s per target)"
for s in "${summary[@]}"; do
	echo "  $s"
done
exit "$status"
