#!/usr/bin/env bash
# build.sh [release|asan|tsan] [CMAKE_ARG]...: configure and build into
#   build/release  Release, SHT_WERROR=ON
#   build/asan     Debug, SHT_SANITIZE=address,undefined, SHT_WERROR=ON,
#                  SHT_DEV_CHECKS=ON
#   build/tsan     RelWithDebInfo, SHT_SANITIZE=thread, SHT_WERROR=ON
#   build/nobt     Release without libbabeltrace2, libxml2 and the server (the store,
#                  the state system and the analyses must not need them)
# Extra arguments go to the cmake configure step (e.g. -DSHT_DEV_CHECKS=ON).
# Environment: CC picks the compiler (cmake's rule); SHT_BUILD_ROOT
# replaces "build" (use one per compiler, e.g. CC=clang SHT_BUILD_ROOT=build/clang).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

mode=${1:-release}
[ $# -gt 0 ] && shift
case $mode in
release) args=(-DCMAKE_BUILD_TYPE=Release -DSHT_SANITIZE= -DSHT_WERROR=ON) ;;
asan)    args=(-DCMAKE_BUILD_TYPE=Debug -DSHT_SANITIZE=address,undefined
               -DSHT_WERROR=ON -DSHT_DEV_CHECKS=ON) ;;
tsan)    args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSHT_SANITIZE=thread
               -DSHT_WERROR=ON) ;;
nobt)    args=(-DCMAKE_BUILD_TYPE=Release -DSHT_SANITIZE= -DSHT_WERROR=ON
               -DSHT_WITH_BABELTRACE2=OFF -DSHT_WITH_LIBXML2=OFF
               -DSHT_WITH_SERVER=OFF) ;;
*)       echo "usage: $0 [release|asan|tsan|nobt] [CMAKE_ARG]..." >&2; exit 2 ;;
esac

dir=${SHT_BUILD_ROOT:-build}/$mode
jobs=$(nproc 2>/dev/null || echo 2)
echo "== build.sh: $mode in $dir"
cmake -S . -B "$dir" "${args[@]}" "$@"
cmake --build "$dir" -j "$jobs"
