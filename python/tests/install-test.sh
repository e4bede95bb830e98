#!/usr/bin/env bash
# install-test.sh BUILD SRCDIR PYTHON: the two ways a user gets the bindings.
#  1. cmake --install into a scratch prefix: the Python package (in the
#     prefix's site directory) and the SQLite module (LIBDIR/sht) load
#     and answer, against the installed libsht (their run paths);
#  2. pip install --no-build-isolation of a copy of python/ against that
#     prefix (pkg-config), into a target directory: it loads and answers.
set -uo pipefail
build=$1
src=$2
py=$3
cd "$SHT_TMP" || exit 1
prefix=$PWD/prefix
n=0
fail=0
check() {   # check DESC CMD...
	n=$((n + 1))
	if out=$("${@:2}" 2>&1); then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"; printf '%s\n' "$out" | sed 's/^/# /'
		fail=1
	fi
}

cmake --install "$build" --prefix "$prefix" >install.log 2>&1 ||
	{ echo "Bail out! cmake --install"; cat install.log; exit 1; }
site=$(find "$prefix" -path '*/sht/__init__.py' | head -n 1)
[ -n "$site" ] || { echo "Bail out! no Python package installed under $prefix"; exit 1; }
site=$(dirname "$(dirname "$site")")
"$prefix/bin/sht" build "$SHT_SHARED/traces/bug446190" -o h.sht --no-progress >/dev/null ||
	{ echo "Bail out! sht build"; exit 1; }
probe='import sht; h = sht.open("h.sht"); print(h.query(h.end, "CPUs/0/Current_thread").value, sht._core.__file__)'
end=$("$prefix/bin/sht" info h.sht --json | "$py" -c 'import json, sys; print(json.load(sys.stdin)["end"])')
want=$("$prefix/bin/sht" query h.sht --at "$end" --attribute CPUs/0/Current_thread | awk '{ print $NF }')
check "cmake --install: the package in $site answers as sht query" \
	bash -c "PYTHONPATH='$site' '$py' -c '$probe' | grep -q '^$want $site/'"
check "cmake --install: the module links the installed libsht" \
	bash -c "ldd '$(find "$site/sht" -name '_core*.so')' | grep -q '$prefix/lib.*/libsht.so'"
if command -v sqlite3 >/dev/null; then
	mod=$(find "$prefix" -name 'sht_sqlite.so' | head -n 1)
	sql="SELECT value FROM sht_intervals('h.sht') WHERE path = 'CPUs/0/Current_thread' AND start <= $end AND \"end\" >= $end;"
	check "cmake --install: sqlite3 .load ${mod%.so}" \
		bash -c "sqlite3 :memory: '.load ${mod%.so}' \"\$0\" | grep -qx '$want'" "$sql"
fi

rm -rf pysrc pip
cp -r "$src/python" pysrc
check "pip install --no-build-isolation against the prefix (pkg-config)" \
	env PKG_CONFIG_PATH="$(dirname "$(find "$prefix" -name sht.pc | head -n 1)")" \
	"$py" -m pip install --no-build-isolation --no-deps --no-index --target pip ./pysrc
check "pip install: the package answers as sht query" \
	bash -c "cd '$SHT_TMP' && PYTHONPATH='$PWD/pip' '$py' -c '$probe' | grep -q '^$want $PWD/pip/'"
echo "1..$n"
exit $fail
