# test-sqlite-bench.sh: sht-sqlite-bench (bench/sqlite-*.c) loads the
# workloads' intervals into SQLite and answers as sht's own history does:
# B-tree (with a separate index, and clustered WITHOUT ROWID) and R*Tree,
# staircase and churn, A = 200, every answer compared
# with sht's history (--check); the JSON line has the promised fields;
# tampered databases are caught; bad options fail cleanly.  Skipped when
# the build found no libsqlite3.
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

BENCH=$(dirname "$SHT")/sht-sqlite-bench
if [ ! -x "$BENCH" ]; then
	echo "1..0 # SKIP sht-sqlite-bench not built (no libsqlite3)"
	exit 77
fi
A=200

for index in btree btree-wr rtree; do
	for wl in staircase churn; do
		what="$index $wl A=$A"
		expect_rc 0 "$what: --check passes" "$BENCH" --index "$index" \
			--workload "$wl" --attrs $A --queries 2000 \
			--full-queries 20 --check --db "$SHT_TMP/x.db"
		[ "$rc" -eq 0 ] || continue
		if [ "$wl" = staircase ]; then
			n=$((A * 21 - 1)) quarks=$A
		else
			n=$((26 * A - 1)) quarks=$((3 * A + 1))
		fi
		is "$(json 'd["system"], d["workload"], d["attrs"], d["intervals"]')" \
			"('sqlite-$index', '$wl', $A, $n)" "$what: identity and intervals"
		is "$(json 'd["checked"] and d["mismatches"] == 0 and d["queries"] == 2000')" \
			1 "$what: checked, no mismatch"
		# 3000 single answers, 22 full answers of every quark: all compared.
		is "$(json "d['checked_answers'] >= 3000 + 22 * $quarks")" 1 \
			"$what: every answer compared with sht's history"
		is "$(json 'all(d[k] > 0 for k in ("build_s", "load_s",
			"bytes", "bytes_per_interval", "single_mean_us",
			"single_p99_us", "full_ms"))')" 1 "$what: positive figures"
		is "$(json "abs(d['bytes_per_interval'] * d['intervals'] - d['bytes']) < 1")" \
			1 "$what: bytes per interval"
		is "$(json "d['full_items'] == $quarks")" 1 \
			"$what: a full query answers for every quark"
		ok "$([ ! -e "$SHT_TMP/x.db" ] && [ ! -e "$SHT_TMP/x.db.sht" ]; echo $?)" \
			"$what: files removed"
	done
done

# The B-tree's one-statement full query is reported too.
expect_rc 0 "btree: --keep" "$BENCH" --index btree --workload staircase \
	--attrs 50 --queries 100 --full-queries 5 --db "$SHT_TMP/k.db" --keep
is "$(json '"full_sql_ms" in d and d["full_sql_ms"] > 0')" 1 "btree: full_sql_ms"
ok "$([ -s "$SHT_TMP/k.db" ]; echo $?)" "btree: --keep keeps the database"
if command -v sqlite3 >/dev/null; then
	is "$(sqlite3 "$SHT_TMP/k.db" 'SELECT count(*), min(start), max(end) FROM iv')" \
		"$((50 * 21 - 1))|0|1000000" "btree: the table holds the intervals"
fi

# Wrong answers are found: a changed value by the oracle, a changed
# bound by the comparison with sht's history only.
for index in btree btree-wr rtree; do
	expect_rc 1 "$index: a tampered value fails" "$BENCH" --index $index \
		--workload staircase --attrs $A --queries 500 --full-queries 5 \
		--tamper value --db "$SHT_TMP/t.db"
	is "$(json 'd["mismatches"] > 0')" 1 "$index: mismatches counted"
	expect_rc 1 "$index: a tampered bound fails --check" "$BENCH" \
		--index $index --workload churn --attrs $A --queries 500 \
		--full-queries 5 --tamper bounds --check --db "$SHT_TMP/t.db"
	case $err in
	*"differs from sht's history"*) ok 0 "$index: reported as differing from sht" ;;
	*) ok 1 "$index: reported as differing from sht"; diag "$err" ;;
	esac
done

# Bad options: exit status 2, a message, no crash.
for args in "" "--index btree" "--index hash --workload staircase --attrs 5" \
	"--index btree --workload zigzag --attrs 5" \
	"--index btree --workload staircase --attrs 0" \
	"--index btree --workload staircase --attrs x5" \
	"--index btree --workload staircase --attrs 5 --queries 0" \
	"--index btree --workload staircase --attrs 5 --bogus" \
	"--index btree --workload staircase --attrs 5 --db $SHT_TMP/no/such/dir/x.db" \
	"--index rtree --workload staircase --attrs"; do
	# shellcheck disable=SC2086
	expect_rc 2 "refused: '$args'" "$BENCH" $args
	is "$(case $err in *sht-sqlite-bench:*) echo 1 ;; esac)" 1 \
		"message for '$args'"
	no_crash "no crash for '$args'"
done
expect_rc 0 "--help" "$BENCH" --help

done_testing
