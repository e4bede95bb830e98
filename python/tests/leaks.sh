#!/usr/bin/env bash
# leaks.sh PYTHON MODULE: every entry point of the Python package
# (exercise.py) under valgrind's memcheck, with Python allocating through
# malloc.  Fails if a block allocated by the extension or by libsht is
# definitely lost, or if memcheck reports an error in them (frames of
# _core*.so or libsht.so); the interpreter's own reports are not ours.
set -uo pipefail
py=$1
module=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$SHT_TMP" || exit 1
command -v valgrind >/dev/null || { echo "not ok - valgrind is missing"; exit 1; }
trace=$SHT_SHARED/traces/xml-stub-kernel-analysis
"$SHT" build "$SHT_SHARED/traces/bug446190" -o hist.sht --no-progress >/dev/null || exit 1
PYTHONPATH=$(dirname "$(dirname "$module")"):$here PYTHONMALLOC=malloc \
	valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite \
	--num-callers=40 --log-file=vg.log \
	"$py" "$here/exercise.py" 3 "$PWD" "$PWD/hist.sht" "$trace"
rc=$?
[ $rc -eq 0 ] || { echo "not ok 1 - exercise.py exited with $rc"; tail -30 vg.log; exit 1; }
# One report per block of lines: a title "==PID== text", then its frames
# "==PID==    at ..." / "by ...", up to an empty "==PID==" line; keep the
# ones that name our code.
awk '
/^==[0-9]+== [^ ]/ { if (blk != "" && mine) print blk "\n"; blk = $0; mine = 0; next }
/^==[0-9]+== *$/   { if (blk != "" && mine) print blk "\n"; blk = ""; mine = 0; next }
{ if (blk != "") { blk = blk "\n" $0; if ($0 ~ /_core\.cpython|libsht\.so/) mine = 1 } }
' vg.log | grep -v "^==[0-9]*== HEAP SUMMARY" > ours.log
if grep -q -E "definitely lost|Invalid|uninitialised|Mismatched|overlap" ours.log; then
	echo "not ok 1 - valgrind reports in the extension or libsht:"
	cat ours.log
	exit 1
fi
echo "ok 1 - no leak and no memory error of the extension or libsht under valgrind ($(grep -c . vg.log) log lines)"
echo "1..1"
