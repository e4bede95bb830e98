#!/usr/bin/env bash
# test.sh [asan|release|tsan|nobt|fuzz]...: install what is needed, build each
# tree (default: asan, release, tsan, nobt and fuzz) and run its whole CTest
# suite; fuzz runs each fuzz target for a short while (scripts/fuzz.sh).  Exits
# non-zero if a build or a test fails.  Environment as for build.sh
# (CC, SHT_BUILD_ROOT); CTEST_PARALLEL_LEVEL overrides -j2.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

modes=("$@")
[ ${#modes[@]} -gt 0 ] || modes=(asan release tsan nobt fuzz)

bash scripts/install-deps.sh || { echo "test.sh: install-deps failed" >&2; exit 1; }

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

summary=()
total_pass=0
total_fail=0
total_skip=0
status=0
for mode in "${modes[@]}"; do
	# fuzz: each fuzz target for SHT_FUZZ_SECONDS (45) under libFuzzer
	# (scripts/fuzz.sh: clang, its own tree and corpora in ROOT/fuzz).
	if [ "$mode" = fuzz ]; then
		# A fixed libFuzzer seed (SHT_FUZZ_SEED, 1): CI's short runs
		# walk the same mutations each time; longer runs (fuzz.sh
		# alone) take a random one.
		SHT_FUZZ_BUILD=${SHT_BUILD_ROOT:-build}/fuzz \
			SHT_FUZZ_SEED=${SHT_FUZZ_SEED:-1} \
			bash scripts/fuzz.sh all "${SHT_FUZZ_SECONDS:-45}"
		rc=$?
		if [ "$rc" -eq 0 ]; then
			summary+=("fuzz: ok (5 targets, ${SHT_FUZZ_SECONDS:-45} s each)")
		elif [ "$rc" -eq 77 ]; then
			summary+=("fuzz: SKIPPED (clang cannot build libFuzzer targets)")
			total_skip=$((total_skip + 1))
		else
			summary+=("fuzz: FAILED (a crash, or the build: see above)")
			total_fail=$((total_fail + 1))
			status=1
		fi
		continue
	fi
	dir=${SHT_BUILD_ROOT:-build}/$mode
	if ! bash scripts/build.sh "$mode"; then
		summary+=("$mode: BUILD FAILED")
		total_fail=$((total_fail + 1))
		status=1
		continue
	fi
	echo "== test.sh: ctest in $dir"
	log=$dir/ctest.log
	select=()
	# ThreadSanitizer runs the tests that start threads.
	[ "$mode" = tsan ] && select=(-L threads)
	# Without babeltrace2: the unit tests (the store and the state system).
	[ "$mode" = nobt ] && select=(-L unit)
	ctest --test-dir "$dir" --output-on-failure --no-tests=error "${select[@]}" \
		-j "${CTEST_PARALLEL_LEVEL:-2}" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	# ctest closes with "100% tests passed, 0 tests failed out of 12".
	counts=$(sed -nE 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1 \2/p' \
		"$log" | tail -n 1)
	read -r n_fail n_all <<<"${counts:-1 1}"
	n_skip=$(grep -c '\*\*\*Skipped' "$log")
	total_pass=$((total_pass + n_all - n_fail - n_skip))
	total_fail=$((total_fail + n_fail))
	total_skip=$((total_skip + n_skip))
	if [ "$rc" -ne 0 ]; then
		status=1
		summary+=("$mode: FAILED ($n_fail of $n_all tests failed, $n_skip skipped)")
	else
		summary+=("$mode: ok ($n_all tests, $n_skip skipped)")
	fi
done

echo
echo "== test.sh summary"
for s in "${summary[@]}"; do
	echo "  $s"
done
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
exit "$status"
