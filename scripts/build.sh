#!/usr/bin/env bash
# Configures and builds compilescope with the dev preset (RelWithDebInfo,
# build/). Incremental: a second run compiles only what changed. With CI=true
# the preset turns COMPILESCOPE_WERROR on: any warning in our code fails the build.
# COMPILESCOPE_BUILD_DIR builds elsewhere with the same settings.
# usage: scripts/build.sh [TARGET...]   (no target: everything, tests included)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build="${COMPILESCOPE_BUILD_DIR:-$root/build}"
# Configured every time (a few seconds): a change of CI reaches the cache.
cmake --preset dev -B "$build" > /dev/null
targets=()
for target in "$@"; do targets+=(--target "$target"); done
cmake --build "$build" --parallel "$(nproc)" "${targets[@]}"
