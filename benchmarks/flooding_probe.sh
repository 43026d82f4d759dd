#!/usr/bin/env bash
# A flooding probe (issue 19), long form: the CI test's executable
# (tests/core/runner/test_flood.cpp) with 1 GiB per flood: garbage lines, valid
# events at full speed, and a line past the 64 MiB bound. Prints its "flood:"
# lines: the event loop's worst stall and the app's RSS (docs/BENCHMARKS.md).
# usage: benchmarks/flooding_probe.sh [BUILD_DIR] [MiB]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-${COMPILESCOPE_BUILD_DIR:-$root/build}}"
COMPILESCOPE_FLOOD_MB="${2:-1024}" "$build/tests/flood_tests" -silent | grep '^flood:\|FAIL\|Totals'
