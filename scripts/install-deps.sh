#!/usr/bin/env bash
# install-deps.sh: install the Debian packages sht needs to build, test and
# benchmark.  Quick when everything is there: apt is not touched then.
# Runs as root, or through sudo otherwise.
set -euo pipefail

required=(build-essential cmake pkg-config clang gnuplot-nox valgrind python3
          libbabeltrace2-dev babeltrace2 libxml2-dev libgmp-dev libsqlite3-dev
          sqlite3 libjansson-dev tzdata help2man man-db)
# The Python package (python/, docs/PYTHON.md): headers and setuptools to
# build it, pip for `pip install ./python`, numpy and pandas for its
# frames, pytest for its tests, distributed (Dask) for sht.dask, bt2 and
# matplotlib for its benchmark and plots.
required+=(python3-dev python3-setuptools python3-wheel python3-pip
           python3-numpy python3-pandas python3-pytest python3-distributed
           python3-bt2 python3-matplotlib)
# sht serve (src/server/): libmicrohttpd and zlib; its tests: Node.js and
# npm run the TSP conformance and load tests (tests/server/, their npm
# packages pinned by package-lock.json, installed by scripts/npm-ci.sh; a
# machine whose node already comes with npm, e.g. NodeSource's nodejs,
# needs neither Debian package), python3-bt2 their event oracle.
required+=(libmicrohttpd-dev zlib1g-dev)
command -v node >/dev/null || required+=(nodejs)
command -v npm >/dev/null || required+=(npm)
# The viewer's tests and benchmark (tests/viewer/, bench/run-viewer.sh)
# drive Debian's Chromium headless through puppeteer-core.
required+=(chromium)
# bench/run-bigtrace.sh times babeltrace2 and sht build with GNU time
# (wall, CPU and peak RSS of a command).
required+=(time)
optional=(libclang-rt-14-dev)   # clang's sanitizer runtimes, if Debian has it

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

if ! command -v dpkg-query >/dev/null || ! command -v apt-get >/dev/null; then
	echo "install-deps: not a Debian system; install by hand: ${required[*]}" >&2
	exit 0
fi

missing=()
for p in "${required[@]}" "${optional[@]}"; do
	installed "$p" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all packages present"
	exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null ||
		{ echo "install-deps: not root and no sudo" >&2; exit 1; }
	sudo=(sudo)
fi
apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get
     -o DPkg::Lock::Timeout=300 -q)

echo "install-deps: missing: ${missing[*]}"
"${apt[@]}" update

# Keep the optional packages the archive actually offers.
to_install=()
for p in "${missing[@]}"; do
	if [[ " ${optional[*]} " == *" $p "* ]]; then
		cand=$(apt-cache policy "$p" 2>/dev/null |
			awk '/Candidate:/ { print $2 }')
		if [ -z "$cand" ] || [ "$cand" = "(none)" ]; then
			echo "install-deps: $p not available, skipped"
			continue
		fi
	fi
	to_install+=("$p")
done
if [ ${#to_install[@]} -gt 0 ]; then
	"${apt[@]}" install -y --no-install-recommends "${to_install[@]}"
fi
echo "install-deps: done"
