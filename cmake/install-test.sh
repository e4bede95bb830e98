#!/usr/bin/env bash
# install-test.sh BUILD_DIR CONSUMER_C: the install test (CTest, label
# "install").  Run from a scratch directory (cmake/run-test.sh).
#  1. `cmake --install BUILD_DIR` into ./prefix;
#  2. check the shared library exports only sht_ names, and that the
#     installed sht tool loads it through its run path;
#  3. build CONSUMER_C with `pkg-config --cflags --libs sht`, run it;
#  4. same against a copy of the prefix without libsht.so, with
#     `pkg-config --static` (libsht.a plus Libs.private).
# Environment: CC (compiler), SHT_CONSUMER_CFLAGS (e.g. sanitizer flags).
set -euo pipefail

build=$1
consumer=$2
cc=${CC:-cc}
read -r -a extra <<<"${SHT_CONSUMER_CFLAGS:-}"
strict=(-std=c11 -Wall -Wextra -Wpedantic -Werror)

fail() { echo "FAIL: $*" >&2; exit 1; }

if ! command -v pkg-config >/dev/null; then
	echo "SKIP: pkg-config not found"
	exit 77
fi

prefix=$PWD/prefix
cmake --install "$build" --prefix "$prefix" >install.log ||
	{ cat install.log; fail "cmake --install"; }

pc=$(find "$prefix" -name sht.pc -path '*/pkgconfig/*' | head -n 1)
[ -n "$pc" ] || fail "sht.pc not installed"
[ -f "$prefix/include/sht/sht.h" ] || fail "headers not installed"
if [ -e "$build/sht" ]; then
	[ -x "$prefix/bin/sht" ] || fail "sht tool not installed"
fi

export PKG_CONFIG_PATH=${pc%/*}
libdir=$(realpath "$(pkg-config --variable=libdir sht)")
[ -e "$libdir/libsht.so" ] && [ -e "$libdir/libsht.a" ] ||
	fail "libsht.so or libsht.a missing in $libdir"
[ -n "$(find "$libdir" -maxdepth 1 -name 'libsht.so.0' -type l)" ] ||
	fail "soname link libsht.so.0 missing in $libdir"

# Exported symbols: the public sht_ API only (plus the sanitizers' own).
bad=$(nm -D --defined-only "$libdir/libsht.so" | awk '{ print $NF }' |
	grep -Ev '^(sht_[a-z0-9]|_init$|_fini$|_edata$|_end$|__bss_start$|__(a|ub|l)san|___?odr_asan|__sanitizer)' || true)
[ -z "$bad" ] || fail "libsht.so exports non-API symbols: $(echo $bad)"

expect=$(sed -n 's/^#define SHT_VERSION_STRING "\(.*\)"$/\1/p' \
	"$prefix/include/sht/version.h")
run_consumer() {  # run_consumer NAME [ENV]...
	local name=$1 out
	shift
	out=$(env "$@" "./$name") || fail "$name exited with $?"
	[ "$out" = "$expect" ] || fail "$name printed '$out', expected '$expect'"
	echo "ok: $name printed $out"
}

# The installed tool is a front end on the shared library: it finds it
# through its run path, with no LD_LIBRARY_PATH, and reaches no hidden
# symbol (it would not have linked).
if [ -x "$prefix/bin/sht" ]; then
	tooldeps=$(env -u LD_LIBRARY_PATH ldd "$prefix/bin/sht")
	toollib=$(awk '$1 == "libsht.so.0" { print $3 }' <<<"$tooldeps")
	[ -n "$toollib" ] && [ "$(realpath "$toollib")" = "$(realpath "$libdir/libsht.so.0")" ] ||
		fail "the installed sht does not load $libdir/libsht.so.0: $toollib"
	out=$(env -u LD_LIBRARY_PATH "$prefix/bin/sht" --version) ||
		fail "the installed sht --version exited with $?"
	[[ $out == *"libsht $expect"* ]] ||
		fail "the installed sht --version printed '$out'"
	echo "ok: installed sht runs on $libdir/libsht.so.0"
	# Its man pages (when built), completion and documentation; `man sht`
	# finds the pages from PATH, as man-db does for any prefix.
	if [ -f "$build/man/sht.1" ] && command -v man >/dev/null; then
		for page in sht sht-query sht-describe; do
			where=$(PATH="$prefix/bin:$PATH" MANPATH= man -w "$page") ||
				fail "man $page: not found after install"
			[[ $where == "$prefix"/* ]] || fail "man $page found $where"
		done
		PATH="$prefix/bin:$PATH" MANPATH= man sht 2>/dev/null | grep -q "TIMES" ||
			fail "man sht does not show the TIMES section"
		echo "ok: man sht, man sht-query, man sht-describe"
	fi
	[ -f "$prefix/share/bash-completion/completions/sht" ] ||
		fail "bash completion not installed"
	[ -f "$prefix/share/doc/sht/GUIDE.md" ] && [ -f "$prefix/share/doc/sht/STATE.md" ] ||
		fail "documentation not installed"
fi

# Nothing installed refers to files beside the repository.
outside=$(grep -rIlE '\.\./shared|KERNEL_MODEL\.md' "$prefix" || true)
[ -z "$outside" ] || fail "installed files refer to ../shared: $outside"
echo "ok: no installed file refers to ../shared"

# shellcheck disable=SC2046  # pkg-config output is meant to be split
"$cc" "${strict[@]}" "${extra[@]}" $(pkg-config --cflags sht) \
	-o consumer-shared "$consumer" $(pkg-config --libs sht)
run_consumer consumer-shared "LD_LIBRARY_PATH=$libdir"
# Capture first: with pipefail, `ldd | grep -q` fails when grep exits
# before ldd has written everything (SIGPIPE).
deps=$(LD_LIBRARY_PATH=$libdir ldd ./consumer-shared)
grep -q "=> $libdir/libsht.so.0 " <<<"$deps" ||
	fail "consumer-shared does not load libsht.so.0 from $libdir"

# Static: the same .pc file, with only the archive to be found.
cp -a "$prefix" static-prefix
export PKG_CONFIG_PATH=${PKG_CONFIG_PATH/#$prefix/$PWD/static-prefix}
rm -f "$(pkg-config --variable=libdir sht)"/libsht.so*
# shellcheck disable=SC2046
"$cc" "${strict[@]}" "${extra[@]}" $(pkg-config --cflags sht) \
	-o consumer-static "$consumer" $(pkg-config --static --libs sht)
run_consumer consumer-static
