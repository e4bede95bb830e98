#!/usr/bin/env bash
# run-pytest.sh PYTHON MODULE [PYTEST ARGS]...: the Python package's
# tests (python/tests) with the package built at MODULE's directory.
# A sanitized build (the asan tree) links the extension against the ASan
# and UBSan runtimes, which must be loaded before the (plain) interpreter:
# they are preloaded, Python allocates with malloc so that ASan sees its
# objects too, and leak detection is off (the interpreter keeps memory
# until exit by design; leaks are checked by leaks.sh under valgrind and
# by test_leaks.py).
set -uo pipefail
py=$1
module=$2
shift 2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pkg=$(dirname "$(dirname "$module")")
preload=()
for lib in asan ubsan; do
	path=$(ldd "$module" | awk -v l="lib$lib.so" 'index($1, l) == 1 { print $3 }')
	[ -n "$path" ] && preload+=("$path")
done
if [ ${#preload[@]} -gt 0 ]; then
	export LD_PRELOAD="${preload[*]}"
	export PYTHONMALLOC=malloc
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
fi
export PYTHONPATH=$pkg${PYTHONPATH:+:$PYTHONPATH}
export PYTHONDONTWRITEBYTECODE=1
exec "$py" -m pytest -q -p no:cacheprovider "$here" "$@"
