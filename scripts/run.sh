#!/usr/bin/env bash
# run.sh [ARG]...: install what is needed, build the release tree, and run
# the main job, `sht demo` (generates a synthetic kernel trace, builds
# its kernel-analysis history, queries it against the trace, checks it).
# Arguments are passed to `sht demo`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh >&2
bash scripts/build.sh release >&2
exec "${SHT_BUILD_ROOT:-build}/release/sht" demo "$@"
